package commands

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v3"
)

// Who reads stdin is decided with the flags, before anything is read: the
// command's key=@- word is known then (no terminal questions follow), and
// reading the word's value changes nothing of the invocation's.
func TestStdinDecidedUpFront(t *testing.T) {
	st := &state{env: Env{Stdin: strings.NewReader("value"), Stdout: &strings.Builder{}, Stderr: &strings.Builder{},
		Getenv: func(string) string { return "" }, Environ: func() []string { return nil }, Getwd: os.Getwd, Now: time.Now}}
	root := newRoot(st)
	sub := root.Command("call")
	ran := false
	sub.Action = func(_ context.Context, cmd *cli.Command) error {
		ran = true
		g, err := st.readGlobals(cmd)
		if err != nil {
			t.Fatal(err)
		}
		if g.input.WordStdin != "k=@-" || g.input.StdinBy != "" {
			t.Errorf("stdin claimed by %q (word %q), want the word k=@-", g.input.StdinBy, g.input.WordStdin)
		}
		before := *g.input
		_, pairs, err := argSource(st.env.Stdin, g).Read([]string{"k=@-"}, "")
		if err != nil || pairs[0].Raw != "value" {
			t.Fatalf("Read: %v, value %+v", err, pairs)
		}
		if g.input.StdinBy != before.StdinBy || g.input.WordStdin != before.WordStdin {
			t.Errorf("reading the words changed the invocation's input: %+v, was %+v", *g.input, before)
		}
		return nil
	}
	sub.Before, sub.After = nil, nil
	if err := root.Run(context.Background(), []string{"mcpc", "call", "srv", "tool", "k=@-"}); err != nil || !ran {
		t.Fatalf("run: %v (action ran: %v)", err, ran)
	}
}
