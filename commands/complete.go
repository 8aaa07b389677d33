package commands

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/urfave/cli/v3"

	"github.com/mcpc-dev/mcpc/client"
	"github.com/mcpc-dev/mcpc/client/config"
	clientstate "github.com/mcpc-dev/mcpc/client/state"
	"github.com/mcpc-dev/mcpc/completions"
	"github.com/mcpc-dev/mcpc/internal/helptext"
	redaction "github.com/mcpc-dev/mcpc/internal/redact"
	"github.com/mcpc-dev/mcpc/internal/textsafe"
	"github.com/mcpc-dev/mcpc/internal/units"
)

// completeTimeout bounds a live lookup of a server's names: a shell waiting
// on TAB must not hang on a slow server.
const completeTimeout = 3 * time.Second

// completeMaxMessage bounds each message from a server asked for a
// completion (the one --max-message bound, set lower): a completion answer
// holds at most client.MaxCompletionValues values, and a list worth
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
insert), so that no value runs or expands on the line; at most ` + strconv.Itoa(client.MaxCompletionValues) + `
values, a note on stderr saying when there are more; a value that is not
one printable line or holds a credential mcpc sent (a server echoing its
token), and a word that would start with "-", are left out; a server's
messages are read up to ` + units.SizeText(completeMaxMessage) + `.`,
		Metadata: examples(
			"bash, in ~/.bashrc", "source <(mcpc completion bash)",
			"zsh, in ~/.zshrc after compinit", "source <(mcpc completion zsh)",
			"fish", "mcpc completion fish > ~/.config/fish/completions/mcpc.fish",
			"PowerShell, in $PROFILE", "mcpc completion pwsh | Out-String | Invoke-Expression",
		),
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.Args().Len() != 1 {
				return usagef("choose one of "+strings.Join(completions.Shells, ", "), "name one shell")
			}
			script, err := completions.Script(cmd.Args().First())
			if err != nil {
				return usagef("choose one of "+strings.Join(completions.Shells, ", "), "%v", err)
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
			secrets := redaction.FromContext(ctx)
			for _, c := range completions.Complete(cmd.Root(), st.dashArgs, src) {
				if !offerable(secrets, c.Value) {
					continue
				}
				desc := strings.ReplaceAll(textsafe.StripControl(secrets.String(c.Description)), "`", "")
				desc = strings.Join(strings.Fields(strings.SplitN(desc, "\n", 2)[0]), " ")
				if utf8.RuneCountInString(desc) > 60 {
					desc = string([]rune(desc)[:57]) + "..."
				}
				v := c.Value
				if v != completions.FilesDirective {
					v = completions.Insert(cmd.String("shell"), v, cur, cmd.String("wordbreaks"))
				}
				if desc == "" {
					fmt.Fprintln(st.env.Stdout, v)
				} else {
					fmt.Fprintf(st.env.Stdout, "%s\t%s\n", v, desc)
				}
			}
			return nil
		},
	}
}

// printable reports whether a candidate can be offered at all: the
// scripts read one a line, and a control character (a newline, a tab, an
// escape sequence) or a byte that is not UTF-8 would break the line, or
// reach the terminal in the list of candidates. Such a value, which only
// a server sends, is dropped rather than shown as something it is not.
func printable(v string) bool {
	return !strings.ContainsAny(v, "\n\t") && textsafe.StripControl(v) == v
}

// offerable reports whether a candidate goes on the command line: it is
// printable, and holds none of the secrets the lookup sent (a server
// that echoes its access token as a value must not put it on the line,
// and from there into the shell's history).
func offerable(secrets *redaction.Set, v string) bool {
	return printable(v) && secrets.String(v) == v
}

// completer answers flag values and arguments from the config and, for a
// configured server, from the server itself.
type completer struct {
	st  *state
	ctx context.Context
}

func (c *completer) FlagValues(r completions.Request, flag string) []completions.Candidate {
	switch flag {
	case "config":
		return completions.Files
	case "server-stderr":
		return []completions.Candidate{{Value: "show", Description: "pass it to stderr"}, {Value: "hide", Description: "drop it"}}
	case "protocol":
		var out []completions.Candidate
		for _, p := range config.Protocols {
			out = append(out, completions.Candidate{Value: p})
		}
		return out
	}
	return nil
}

func (c *completer) Args(r completions.Request) []completions.Candidate {
	if len(r.Path) == 0 {
		return nil
	}
	pos := r.Positional
	switch r.Path[0] {
	case "help":
		if len(pos) > 0 {
			return nil
		}
		var out []completions.Candidate
		for _, t := range helptext.Topics {
			out = append(out, completions.Candidate{Value: t.Name, Description: "topic"})
		}
		for _, c := range completions.Subcommands(r.Root) {
			if !slices.ContainsFunc(out, func(o completions.Candidate) bool { return o.Value == c.Name }) {
				out = append(out, completions.Candidate{Value: c.Name, Description: c.Usage})
			}
		}
		return out
	case "completion":
		if len(pos) > 0 {
			return nil
		}
		var out []completions.Candidate
		for _, s := range completions.Shells {
			out = append(out, completions.Candidate{Value: s})
		}
		return out
	case "trust", "untrust":
		if len(pos) == 0 {
			return completions.Files
		}
		return nil
	case "task":
		// mcpc task get|result|cancel|list SERVER, then TASK_ID.
		switch {
		case len(r.Path) < 2 || len(r.Flags["stdio"]) > 0:
			return nil
		case len(pos) == 0:
			return c.servers(r)
		case len(pos) == 1 && r.Path[1] != "list":
			return c.taskIDs(r, pos[0])
		}
		return nil
	case "skills":
		// mcpc skills SERVER | skills get SERVER NAME: the server; skill
		// names would need the server contacted.
		if len(pos) == 0 && len(r.Flags["stdio"]) == 0 {
			return c.servers(r)
		}
		return nil
	case "list", "call", "read", "prompt":
	default:
		return nil
	}
	// A server on the command line (--stdio, a URL) is never started or
	// contacted for a completion.
	if len(r.Flags["stdio"]) > 0 {
		return nil
	}
	if len(pos) == 0 {
		return c.servers(r)
	}
	if config.IsURL(pos[0]) {
		return nil
	}
	return c.names(r)
}

// globals are those of a quiet, quick invocation with the --config files
// given on the line being completed.
func (c *completer) globals(r completions.Request) *globals {
	cwd, _ := c.st.env.Getwd()
	files := slices.Clone(r.Flags["config"])
	if v := c.st.env.Getenv("MCPC_CONFIG"); v != "" {
		files = append(files, filepath.SplitList(v)...)
	}
	return &globals{
		cwd:             cwd,
		dirs:            config.DirsFrom(c.st.env.Getenv),
		configFiles:     files,
		connectTimeout:  completeTimeout,
		serverStderr:    "hide",
		serverStderrSet: true,
	}
}

func (c *completer) config(r completions.Request) *config.Config {
	cfg, err := c.globals(r).loadConfig()
	if err != nil {
		return nil
	}
	return cfg
}

func (c *completer) servers(r completions.Request) []completions.Candidate {
	cfg := c.config(r)
	if cfg == nil {
		return nil
	}
	var out []completions.Candidate
	for _, name := range slices.Sorted(maps.Keys(cfg.Servers)) {
		e := cfg.Servers[name]
		out = append(out, completions.Candidate{Value: name, Description: client.TransportName(nil, e.Server) + " server"})
	}
	return out
}

// taskIDs offers the detached tasks mcpc remembers on server (a configured
// name or a URL), read from the state dir: the server is not contacted.
func (c *completer) taskIDs(r completions.Request, server string) []completions.Candidate {
	cfg := c.config(r)
	if cfg == nil {
		return nil
	}
	e, err := cfg.Resolve(server, config.AdHoc{})
	if err != nil || e.Server.URL == "" {
		return nil
	}
	g := c.globals(r)
	var out []completions.Candidate
	for _, t := range client.RememberedTasks(e, clientstate.NewMemo(g.dirs.State, g.dirs.Cache), g.cwd) {
		out = append(out, completions.Candidate{Value: t.TaskID, Description: "a task of " + t.Tool})
	}
	return serverWords(out)
}

// serverWords drops the candidates a server named that would start with
// "-": mcpc would read such a word as a flag (a tool named
// "--stdio=rm -rf ~" must not become a --stdio command), and no argument
// of mcpc's can start with one.
func serverWords(cs []completions.Candidate) []completions.Candidate {
	return slices.DeleteFunc(cs, func(c completions.Candidate) bool { return strings.HasPrefix(c.Value, "-") })
}

// note tells what a lookup could not offer, on stderr, which the scripts
// drop and a person running mcpc __complete sees.
func (c *completer) note(msg string, args ...any) {
	textsafe.Note(c.st.env.Stderr, msg, args...)
}
