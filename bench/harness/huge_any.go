//go:build linux

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/mcpc-dev/mcpc/internal/shellwords"
)

// hugeAnyN is the size of the huge-any rows' lists: 200,000 tools of
// about 130 bytes (a tools/list of 26.5 MiB), as the issue measured them.
const hugeAnyN = 200000

// listMiB is the size of bench/listserver's list of kind with n items, in
// MiB: what its generator writes (bench/listserver items).
func listMiB(kind string, n int) float64 {
	per := map[string]float64{"tools": 138.9, "prompts": 116.9, "resources": 120.3}[kind]
	return per * float64(n) / (1 << 20)
}

// hugeAnyGroups measure huge lists from a server written elsewhere
// (bench/listserver: no SDK, the list streamed, so wait4's peak is
// mcpc's): one group per way a list can arrive — one page or many,
// 2025-11-25 or 2026-07-28, with cache hints or without, stdio or
// Streamable HTTP — and the same for prompts/list and resources/list.
// Each row's bound is 3 × the message + 20 MiB (targets).
func (h *harness) hugeAnyGroups(runs int) []*group {
	mcpc, ls := h.path("mcpc"), h.path("listserver")
	batch := filepath.Join(h.tmp, "huge-any-batch.jsonl")
	check(os.WriteFile(batch, []byte(`{"tool":"tool-3","arguments":{"query":"q"}}`+"\n"+`{"tool":"echo","arguments":{"text":"hi"}}`+"\n"), 0o644))
	n := strconv.Itoa(hugeAnyN)
	last := "tool-" + strconv.Itoa(hugeAnyN-1)
	type mode struct {
		key, title string
		flags      []string
		http       bool
	}
	modes := []mode{
		{"stdio-2025", "stdio, 2025-11-25, one page, no cache hints", []string{"-era", "2025"}, false},
		{"stdio-2025-paged", "stdio, 2025-11-25, pages of 20,000", []string{"-era", "2025", "-page", "20000"}, false},
		{"stdio-2026", "stdio, 2026-07-28, no cache hints", []string{"-era", "2026"}, false},
		{"stdio-2026-cached", "stdio, 2026-07-28, cache hints (warm: the list read back from the cache)", []string{"-era", "2026", "-ttl", ttlMs}, false},
		{"http-2025", "Streamable HTTP, 2025-11-25, one page", []string{"-era", "2025"}, true},
		{"http-2026", "Streamable HTTP, 2026-07-28, no cache hints", []string{"-era", "2026"}, true},
	}
	var groups []*group
	for _, m := range modes {
		flags := append([]string{"-n", n}, m.flags...)
		target := []string{"--stdio", shellwords.Join(append([]string{ls}, flags...))}
		if m.http {
			url, stop := h.serveHTTP(ls, "huge-any-"+m.key, flags...)
			atExit(stop)
			target = []string{url}
		}
		cmd := func(args ...string) []string {
			return append(append([]string{mcpc}, args[0]), append(target, args[1:]...)...)
		}
		home := fixed(h.newHome())
		groups = append(groups, &group{key: "huge-any-" + m.key, messageMiB: listMiB("tools", hugeAnyN), runs: runs, warmup: 1,
			title: fmt.Sprintf("%d tools (a tools/list of %.1f MiB) from bench/listserver, %s", hugeAnyN, listMiB("tools", hugeAnyN), m.title), rows: []*row{
				{name: "mcpc list --json", cmd: cmdSpec{argv: cmd("list", "--json", "tools"), home: home, want: `"tool-1"`}, note: "output bounded (50 KiB inline)"},
				{name: "mcpc list --text", cmd: cmdSpec{argv: cmd("list", "--text", "tools"), home: home, want: `tool-1`}},
				{name: "mcpc call of its last tool", cmd: cmdSpec{argv: cmd("call", last, "query=x"), home: home, want: last}},
				{name: "mcpc call --batch (two calls)", cmd: cmdSpec{argv: cmd("call", "--batch", batch), home: home, want: `"hi"`}},
				{name: "mcpc list SERVER tools NAME (describe)", cmd: cmdSpec{argv: cmd("list", "--text", "tools", "tool-7"), home: home, want: `Tool 7 of a long list.`}},
			}})
	}
	for _, kind := range []string{"prompts", "resources"} {
		stdio := []string{"--stdio", shellwords.Join([]string{ls, "-n", n, "-era", "2025", "-kind", kind})}
		cmd := func(args ...string) []string {
			return append(append([]string{mcpc}, args[0]), append(stdio, args[1:]...)...)
		}
		home := fixed(h.newHome())
		rows := []*row{
			{name: "mcpc list --json", cmd: cmdSpec{argv: cmd("list", "--json", kind), home: home, want: `"` + kind[:len(kind)-1] + `-1"`}},
			{name: "mcpc list --text", cmd: cmdSpec{argv: cmd("list", "--text", kind), home: home, want: kind[:len(kind)-1] + `-1`}},
		}
		if kind == "prompts" {
			rows = append(rows, &row{name: "mcpc list SERVER prompts NAME (describe)", cmd: cmdSpec{argv: cmd("list", "--text", "prompts", "prompt-7"), home: home, want: `Prompt 7 of a long list.`}})
		}
		groups = append(groups, &group{key: "huge-any-" + kind, messageMiB: listMiB(kind, hugeAnyN), runs: runs, warmup: 1,
			title: fmt.Sprintf("%d %s (a %s/list of %.1f MiB) from bench/listserver, stdio, 2025-11-25, one page", hugeAnyN, kind, kind, listMiB(kind, hugeAnyN)), rows: rows})
	}
	return groups
}

// scaleGroups are the cost as the work grows: peak RSS and wall time of
// mcpc list and call for 1,000 to 200,000 tools (bench/listserver, stdio,
// 2025-11-25, one page), and of a call whose result is 1, 10 or 100 MiB
// (its huge tool, streamed: wait4's peak is mcpc's), each next to the
// smallest, so that the growth shows as a ratio.
func (h *harness) scaleGroups(runs int) []*group {
	mcpc, ls := h.path("mcpc"), h.path("listserver")
	home := fixed(h.newHome())
	tools := &group{key: "scale-tools", title: "cost as the list grows: tools from bench/listserver (stdio, 2025-11-25, one page)", runs: runs, warmup: 1}
	for _, what := range []string{"list --json", "call"} {
		for _, n := range []int{1000, 10000, 100000, 200000} {
			stdio := []string{"--stdio", shellwords.Join([]string{ls, "-n", strconv.Itoa(n), "-era", "2025"})}
			argv := append([]string{mcpc, "list", "--json"}, append(stdio, "tools")...)
			want := `"tool-1"`
			if what == "call" {
				last := "tool-" + strconv.Itoa(n-1)
				argv, want = append(append([]string{mcpc, "call"}, stdio...), last, "query=x"), last
			}
			tools.rows = append(tools.rows, &row{name: fmt.Sprintf("mcpc %s, %d tools (%.1f MiB)", what, n, listMiB("tools", n)), cmd: cmdSpec{argv: argv, home: home, want: want}})
		}
	}
	results := &group{key: "scale-result", title: "cost as the result grows: one tool result from bench/listserver (stdio, default bounding: 50 KiB inline, the rest to an overflow file)", runs: runs, warmup: 1}
	for _, mib := range []int{1, 10, 100} {
		stdio := shellwords.Join([]string{ls, "-n", "0", "-era", "2025"})
		argv := []string{mcpc, "call", "--max-message", "256MiB", "--stdio", stdio, "huge", "bytes:=" + strconv.Itoa(mib<<20)}
		results.rows = append(results.rows, &row{name: fmt.Sprintf("mcpc call, a %d MiB result", mib), cmd: cmdSpec{argv: argv, home: home, want: hugeWant}})
	}
	return []*group{tools, results}
}
