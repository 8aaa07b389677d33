package commands

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/mcpc-dev/mcpc/client/conn"

	"github.com/urfave/cli/v3"

	"github.com/mcpc-dev/mcpc/client"
	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/completions"
	"github.com/mcpc-dev/mcpc/internal/helptext"
	redaction "github.com/mcpc-dev/mcpc/internal/redact"
	"github.com/mcpc-dev/mcpc/internal/textsafe"
	"github.com/mcpc-dev/mcpc/internal/units"
)

// completeMaxMessage bounds each message from a server asked for a
// completion (the one --max-message bound, set lower): a completion answer
// holds at most conn.MaxCompletionValues values, and a list worth
// offering on TAB is far smaller, so a server that answers with more is
// not read to the end.
const completeMaxMessage = 4 << 20

func completionCommand(st *state) *cli.Command {
	return &cli.Command{
		Name:      "completion",
		Usage:     "print the shell completion script for bash, zsh, fish or pwsh",
		ArgsUsage: strings.Join(completions.Shells, "|"),
		Description: `The script completes commands, flags, configured server names, and the
tool, prompt and resource names of the server named on the line, asked
for with a short timeout (configured servers only: a --stdio command or a
URL being typed is never contacted, nor is an untrusted project's server),
argument values (a prompt's and a resource template's from the server's
completion/complete, with the arguments already given as context; a tool's
from its input schema: enum, const, true/false), and after 'mcpc task get|result|cancel SERVER' the detached tasks mcpc
remembers on that server (read from the state directory).

What a server offers is typed as words and nothing more: each quoted for
the shell (by mcpc for bash and PowerShell; zsh and fish quote what they
insert), so that no value runs or expands on the line; at most ` + strconv.Itoa(conn.MaxCompletionValues) + `
values, a note on stderr saying when there are more; a value that is not
one printable line or holds a credential mcpc sent (a server echoing its
token), and a word that would start with "-", are left out; a server's
messages are read up to ` + units.SizeText(completeMaxMessage) + `.`,
		Metadata: helptext.Examples(
			"bash, in ~/.bashrc", "source <(mcpc completion bash)",
			"zsh, in ~/.zshrc after compinit", "source <(mcpc completion zsh)",
			"fish", "mcpc completion fish > ~/.config/fish/completions/mcpc.fish",
			"PowerShell, in $PROFILE", "mcpc completion pwsh | Out-String | Invoke-Expression",
		),
		Action: func(ctx context.Context, cmd *cli.Command) error {
			script, err := completionArgs(cmd.Args().Slice())
			if err != nil {
				return err
			}
			_, err = fmt.Fprint(st.env.Stdout, script)
			return err
		},
	}
}

// completeCommand is what the scripts call: `mcpc __complete [--shell
// SHELL [--wordbreaks CHARS]] -- WORDS…` prints the candidates for the last
// word, one per line as word, tab, description; each word as the shell's
// script puts it on the line (completions.Insert: quoted for bash, from
// the word's last break character on, and for PowerShell). It never fails
// loudly: a shell has nowhere to show errors, and the scripts drop what
// it says on stderr.
func completeCommand(st *state) *cli.Command {
	return &cli.Command{
		Name:   "__complete",
		Hidden: true,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "shell"},
			&cli.StringFlag{Name: "wordbreaks", Value: completions.DefaultWordBreaks},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			src := &completer{st: st, ctx: ctx}
			cur := ""
			if len(st.dashArgs) > 0 {
				cur = st.dashArgs[len(st.dashArgs)-1]
			}
			cands := completions.Complete(cmd.Root(), st.dashArgs, src)
			completions.Write(st.env.Stdout, cands, redaction.FromContext(ctx), cmd.String("shell"), cur, cmd.String("wordbreaks"))
			return nil
		},
	}
}

// completer answers flag values and arguments from the config and, for a
// configured server, from the server itself.
type completer struct {
	st  *state
	ctx context.Context
}

func (c *completer) FlagValues(r completions.Request, flag string) []completions.Candidate {
	return completions.FlagValues(flag, config.Protocols)
}

func (c *completer) Args(r completions.Request) []completions.Candidate {
	return completions.Args(c.ctx, r, c)
}

// Topics are mcpc help's.
func (c *completer) Topics() []completions.Candidate {
	return completions.Words(helptext.Names(), "topic")
}

// Open reaches a configured server (never a URL) with its stderr hidden,
// each message bounded by completeMaxMessage.
func (c *completer) Open(ctx context.Context, r completions.Request) (completions.Server, func(), error) {
	name, l := r.Positional[0], c.lookup(r)
	maxMessage, ok := l.MaxMessage(name, completeMaxMessage)
	if !ok {
		return nil, nil, errors.New("not a configured server")
	}
	// A quiet, quick invocation with the --config files on the line.
	o := l.LoadOptions()
	g := &globals{cwd: o.Cwd, dirs: o.Dirs, configFiles: o.ConfigFiles, maxMessage: maxMessage,
		connectTimeout: completions.LookupTimeout, serverStderr: "hide", serverStderrSet: true}
	sess, closeFn, err := c.st.connector(g).Open(ctx, name)
	if err != nil {
		return nil, nil, err
	}
	return completionServer{sess}, closeFn, nil
}

// completionServer is a session as a completion asks it.
type completionServer struct{ connection }

func (s completionServer) Label() string { return s.label() }

// lookup reads the config the line being completed names.
func (c *completer) lookup(r completions.Request) client.Completion {
	cwd, _ := c.st.env.Getwd()
	return client.Completion{Getenv: c.st.env.Getenv, Cwd: cwd, Files: r.Flags["config"]}
}

func (c *completer) Servers(r completions.Request) []completions.Candidate {
	names, transports := c.lookup(r).Servers()
	var out []completions.Candidate
	for i, name := range names {
		out = append(out, completions.Candidate{Value: name, Description: transports[i] + " server"})
	}
	return out
}

// Tasks offers the detached tasks mcpc remembers on server (a configured
// name or a URL), read from the state dir: the server is not contacted.
func (c *completer) Tasks(r completions.Request, server string) []completions.Candidate {
	var out []completions.Candidate
	for _, t := range c.lookup(r).Tasks(server) {
		out = append(out, completions.Candidate{Value: t.TaskID, Description: "a task of " + t.Tool})
	}
	return out
}

func (c *completer) Note(msg string, args ...any) {
	textsafe.Note(c.st.env.Stderr, msg, args...)
}

// completionArgs reads completion's one SHELL: its script.
func completionArgs(args []string) (string, error) {
	hint := "choose one of " + strings.Join(completions.Shells, ", ")
	if len(args) != 1 {
		return "", usagef(hint, "name one shell")
	}
	script, err := completions.Script(args[0])
	if err != nil {
		return "", usagef(hint, "%v", err)
	}
	return script, nil
}
