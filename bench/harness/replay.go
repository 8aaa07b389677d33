//go:build linux

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/mcpc-dev/mcpc/internal/shellwords"
)

// replayN is the messages of the replay row's recording.
const replayN = 10000

// replayGroups is mcpc call against mcpc replay of a recording of
// replayN messages, next to the same call to the in-repo server. The
// recording is a real one of that call, with replayN messages of other
// exchanges (echo calls of other texts, answered) before it: the replay
// reads them all and matches past them.
func (k *kit) replayGroups() []*group {
	file := filepath.Join(k.h.tmp, "replay.jsonl")
	rec := exec.Command(k.mcpc, append(k.call(k.stdio...)[1:], "--record", file)...)
	rec.Env = []string{"HOME=" + k.h.newHome(), "PATH=" + k.h.basePath}
	if out, err := rec.CombinedOutput(); err != nil {
		die(fmt.Errorf("recording the replay row's call: %v: %s", err, lastLine(string(out))))
	}
	data, err := os.ReadFile(file)
	check(err)
	// After the format's line and the connection's.
	head := bytes.SplitAfterN(data, []byte("\n"), 3)
	var pad bytes.Buffer
	for i := range replayN / 2 {
		fmt.Fprintf(&pad, `{"t":"2026-07-28T12:00:00Z","conn":1,"dir":"out","transport":"stdio","msg":{"jsonrpc":"2.0","id":"pad-%d","method":"tools/call","params":{"name":"echo","arguments":{"text":"pad %d"}}}}`+"\n", i, i)
		fmt.Fprintf(&pad, `{"t":"2026-07-28T12:00:00Z","conn":1,"dir":"in","transport":"stdio","msg":{"jsonrpc":"2.0","id":"pad-%d","result":{"content":[{"type":"text","text":"pad %d"}]}}}`+"\n", i, i)
	}
	check(os.WriteFile(file, append(append(append(head[0], head[1]...), pad.Bytes()...), head[2]...), 0o644))
	replay := []string{"--stdio", shellwords.Quote(k.mcpc) + " replay --strict " + shellwords.Quote(file)}
	return []*group{{key: "replay", title: fmt.Sprintf("`tools/call` against `mcpc replay` of a %d-message recording (stdio)", replayN), runs: k.slow, warmup: 1, rows: []*row{
		{name: "mcpc call, warm (the in-repo server)", cmd: cmdSpec{argv: k.call(k.stdio...), home: k.warm, want: echoWant}},
		{name: "mcpc call --stdio 'mcpc replay FILE', warm", cmd: cmdSpec{argv: k.call(replay...), home: fixed(k.h.newHome()), want: echoWant}, note: "target: within 1.2× of the server"},
	}}}
}
