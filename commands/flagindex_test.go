package commands

import (
	"context"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/mcpc-dev/mcpc/internal/cliflags"
)

// TestFlagIndexAgrees: for every flag name of every command of the real
// tree, parsed from a command line that sets flags of the root, of the
// command and by an alias, the index answers what urfave/cli's lookups do.
func TestFlagIndexAgrees(t *testing.T) {
	lines := map[string][]string{
		"call":  {"--json", "--timeout", "3s", "-q", "content", "--answer", "a=b", "--no-validate", "-H", "X: y", "-H", "Z: w", "srv", "tool"},
		"list":  {"--text", "--max-bytes", "300", "--connect-timeout", "2s", "srv"},
		"login": {"--verbose", "srv"},
	}
	for name, args := range lines {
		t.Run(name, func(t *testing.T) {
			st := &state{env: Env{Stdin: strings.NewReader(""), Stdout: &strings.Builder{}, Stderr: &strings.Builder{},
				Getenv: func(string) string { return "" }, Environ: func() []string { return nil }, Getwd: os.Getwd, Now: time.Now}}
			root := newRoot(st)
			sub := root.Command(name)
			if sub == nil {
				t.Fatalf("no command %s", name)
			}
			checked := 0
			sub.Action = func(_ context.Context, cmd *cli.Command) error {
				idx := cliflags.Of(cmd)
				for n := range idx {
					checked++
					if got, want := idx.Value(n), cmd.Value(n); !reflect.DeepEqual(got, want) {
						t.Errorf("--%s: index %#v, urfave/cli %#v", n, got, want)
					}
					if got, want := idx.IsSet(n), cmd.IsSet(n); got != want {
						t.Errorf("--%s: index set=%v, urfave/cli set=%v", n, got, want)
					}
				}
				if idx.Value("no-such-flag") != nil || idx.IsSet("no-such-flag") {
					t.Errorf("a name no flag bears has a value")
				}
				return nil
			}
			sub.Before, sub.After = nil, nil
			if err := root.Run(context.Background(), append([]string{"mcpc", name}, args...)); err != nil {
				t.Fatal(err)
			}
			if checked < 20 {
				t.Errorf("only %d flag names checked", checked)
			}
		})
	}
}
