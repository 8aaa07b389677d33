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

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tidwall/gjson"
	"github.com/urfave/cli/v3"

	"github.com/mcpc-dev/mcpc/client"
	"github.com/mcpc-dev/mcpc/client/config"
	clientstate "github.com/mcpc-dev/mcpc/client/state"
	"github.com/mcpc-dev/mcpc/completions"
	"github.com/mcpc-dev/mcpc/format"
	redaction "github.com/mcpc-dev/mcpc/internal/redact"
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
				desc := strings.ReplaceAll(format.StripControl(secrets.String(c.Description)), "`", "")
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
	return !strings.ContainsAny(v, "\n\t") && format.StripControl(v) == v
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
		for _, t := range topics {
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
	format.Note(c.st.env.Stderr, msg, args...)
}

// names answers the words after SERVER by asking the server, within
// completeTimeout and completeMaxMessage, with its stderr hidden.
func (c *completer) names(r completions.Request) []completions.Candidate {
	return serverWords(c.lookup(r))
}

func (c *completer) lookup(r completions.Request) []completions.Candidate {
	cfg := c.config(r)
	if cfg == nil {
		return nil
	}
	srv, ok := cfg.Servers[r.Positional[0]]
	if !ok {
		return nil
	}
	cmd, pos := r.Path[0], r.Positional[1:]
	kind := ""
	switch {
	case cmd == "list" && len(pos) == 0:
		kind = "tools"
	case cmd == "list" && len(pos) == 1 && slices.Contains(client.ListKindWords(), pos[0]) && pos[0] != "resources":
		kind = pos[0]
	case cmd == "call" && len(pos) == 0:
		kind = "tools"
	case cmd == "call":
		kind = "tool-args"
	case cmd == "read" && len(pos) == 0:
		kind = "resources"
	case cmd == "prompt" && len(pos) == 0:
		kind = "prompts"
	case cmd == "prompt":
		kind = "prompt-args"
	default:
		return nil
	}
	ctx, cancel := context.WithTimeout(c.ctx, completeTimeout)
	defer cancel()
	g := c.globals(r)
	g.maxMessage = completeMaxMessage
	if m := int64(srv.Server.MaxMessage); m > 0 {
		g.maxMessage = min(m, completeMaxMessage)
	}
	sess, closeFn, err := c.st.open(ctx, g, r.Positional[0])
	if err != nil {
		return nil
	}
	defer closeFn()
	var out []completions.Candidate
	list := kind
	switch kind {
	case "tool-args":
		list = "tools"
	case "prompt-args":
		list = "prompts"
	}
	// KEY=partial: the argument's values, not the names.
	if key, sep, partial, ok := argBeingValued(r.Current); ok && (kind == "tool-args" || kind == "prompt-args") {
		if kind == "prompt-args" {
			ref := &mcp.CompleteReference{Type: "ref/prompt", Name: pos[0]}
			return c.serverValues(ctx, sess, ref, key, partial, givenArgs(pos[1:]), key+sep)
		}
		return schemaValues(ctx, sess, pos[0], key, sep)
	}
	raw, err := sess.ListRaw(ctx, list)
	if err != nil {
		c.note("no names offered: %s", format.OneLine(err.Error()))
		return nil
	}
	if kind == "resources" {
		out = c.templateValues(ctx, sess, r.Current)
	}
	if kind == "tools" && cmd == "list" {
		for _, k := range client.ListKindWords() {
			out = append(out, completions.Candidate{Value: k, Description: "list the server's " + k})
		}
	}
	key := map[string]string{"tools": "tools", "prompts": "prompts", "templates": "resourceTemplates", "resources": "resources"}[list]
	for _, item := range gjson.GetBytes(raw, key).Array() {
		name := item.Get("name").String()
		switch kind {
		case "tools", "prompts":
			out = append(out, completions.Candidate{Value: name, Description: item.Get("description").String()})
		case "templates":
			out = append(out, completions.Candidate{Value: name, Description: item.Get("uriTemplate").String()})
		case "resources":
			out = append(out, completions.Candidate{Value: item.Get("uri").String(), Description: name})
		case "tool-args":
			if name == pos[0] {
				item.Get("inputSchema.properties").ForEach(func(k, v gjson.Result) bool {
					if !given(pos[1:], k.String()) {
						out = append(out, completions.Candidate{Value: k.String() + "=", Description: v.Get("description").String()})
					}
					return true
				})
			}
		case "prompt-args":
			if name == pos[0] {
				for _, a := range item.Get("arguments").Array() {
					if n := a.Get("name").String(); !given(pos[1:], n) {
						out = append(out, completions.Candidate{Value: n + "=", Description: a.Get("description").String()})
					}
				}
			}
		}
	}
	return out
}

// given reports whether words already hold key=… or key:=….
func given(words []string, key string) bool {
	for _, w := range words {
		if strings.HasPrefix(w, key+"=") || strings.HasPrefix(w, key+":=") {
			return true
		}
	}
	return false
}

// argBeingValued splits the word being typed when it is KEY=partial or
// KEY:=partial.
func argBeingValued(word string) (key, sep, partial string, ok bool) {
	i := strings.IndexByte(word, '=')
	if i <= 0 {
		return "", "", "", false
	}
	key, sep = word[:i], "="
	if strings.HasSuffix(key, ":") {
		key, sep = key[:len(key)-1], ":="
	}
	return key, sep, word[i+1:], key != ""
}

// givenArgs are the KEY=VALUE words already on the line, the context a
// server may narrow a later argument's values by.
func givenArgs(words []string) map[string]string {
	out := map[string]string{}
	for _, w := range words {
		if k, v, ok := strings.Cut(w, "="); ok && k != "" && !strings.HasSuffix(k, ":") {
			out[k] = v
		}
	}
	return out
}

// serverValues asks the server (completion/complete) for an argument's
// values; each candidate is prefix followed by a value. When the server
// has more than it sent, or sent more than the spec's 100, a note says so:
// the candidates hold only values.
func (c *completer) serverValues(ctx context.Context, sess session, ref *mcp.CompleteReference, arg, partial string, args map[string]string, prefix string) []completions.Candidate {
	values, more, err := sess.Complete(ctx, ref, arg, partial, args)
	if err != nil {
		c.note("no values offered for %q: %s", arg, format.OneLine(err.Error()))
		return nil
	}
	if more {
		c.note("%s has more values for %q than the %d offered: type more of the value to narrow them", sess.label(), arg, len(values))
	}
	var out []completions.Candidate
	for _, v := range values {
		out = append(out, completions.Candidate{Value: prefix + v})
	}
	return out
}

// schemaValues offers what a tool's input schema allows for one argument:
// its enum, its const, or true and false. A KEY:= word gets JSON values.
func schemaValues(ctx context.Context, sess session, tool, key, sep string) []completions.Candidate {
	raw, err := sess.ListRaw(ctx, "tools")
	if err != nil {
		return nil
	}
	var prop gjson.Result
	for _, t := range gjson.GetBytes(raw, "tools").Array() {
		if t.Get("name").String() == tool {
			prop = t.Get("inputSchema.properties." + gjson.Escape(key))
		}
	}
	var values []gjson.Result
	switch {
	case prop.Get("enum").IsArray():
		values = prop.Get("enum").Array()
	case prop.Get("const").Exists():
		values = []gjson.Result{prop.Get("const")}
	case prop.Get("type").String() == "boolean":
		values = gjson.Parse(`[true,false]`).Array()
	}
	var out []completions.Candidate
	for _, v := range values {
		text := v.String()
		if sep == ":=" || v.Type == gjson.JSON {
			text = v.Raw
		}
		out = append(out, completions.Candidate{Value: key + sep + text, Description: prop.Get("description").String()})
	}
	return out
}

// templateValues completes a URI against the server's resource templates:
// the template's text up to its first variable, then, inside a variable,
// the values the server offers for it (with the variables before it as
// the context).
func (c *completer) templateValues(ctx context.Context, sess session, word string) []completions.Candidate {
	raw, err := sess.ListRaw(ctx, "templates")
	if err != nil {
		return nil
	}
	var out []completions.Candidate
	for _, t := range gjson.GetBytes(raw, "resourceTemplates").Array() {
		tpl := t.Get("uriTemplate").String()
		m, ok := completions.MatchTemplate(tpl, word)
		switch {
		case !ok:
		case m.Variable == "":
			out = append(out, completions.Candidate{Value: m.Prefix, Description: "template " + t.Get("name").String()})
		default:
			ref := &mcp.CompleteReference{Type: "ref/resource", URI: tpl}
			out = append(out, c.serverValues(ctx, sess, ref, m.Variable, m.Partial, m.Vars, m.Prefix)...)
		}
	}
	return out
}
