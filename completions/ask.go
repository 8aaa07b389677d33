package completions

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tidwall/gjson"

	"github.com/mcpc-dev/mcpc/internal/listkind"
	"github.com/mcpc-dev/mcpc/internal/rawmsg"
	"github.com/mcpc-dev/mcpc/internal/textsafe"
)

// LookupTimeout bounds a live lookup of a server's names, its start
// included: a shell waiting on TAB must not hang on a slow server.
const LookupTimeout = 3 * time.Second

// Server is the server named on the line, asked for what it offers.
type Server interface {
	// ListRaw is a whole list: "tools", "prompts", "resources" or
	// "templates", as the server's JSON result.
	ListRaw(ctx context.Context, kind string) (json.RawMessage, error)
	// Complete is completion/complete for one argument.
	Complete(ctx context.Context, ref *mcp.CompleteReference, arg, partial string, args map[string]string) (values []string, more bool, err error)
	// Label is how a note names the server.
	Label() string
}

// Answers are what mcpc knows that the command tree does not: its help
// topics, its configured servers and remembered tasks (read, never
// contacted), and the way to a configured server.
type Answers interface {
	Topics() []Candidate
	Servers(r Request) []Candidate
	// Tasks are the detached tasks remembered on server.
	Tasks(r Request, server string) []Candidate
	// Open starts or reaches the configured server r.Positional[0] within
	// ctx, its stderr hidden; an error when it is not one.
	Open(ctx context.Context, r Request) (Server, func(), error)
	// Note tells what a lookup could not offer, on stderr, which the
	// scripts drop and a person running mcpc __complete sees.
	Note(format string, args ...any)
}

// Args answers the positional words of mcpc's commands. A server on the
// command line (--stdio, a URL) is never started or contacted for a
// completion.
func Args(ctx context.Context, r Request, a Answers) []Candidate {
	if len(r.Path) == 0 {
		return nil
	}
	pos, adHoc := r.Positional, len(r.Flags["stdio"]) > 0
	switch r.Path[0] {
	case "help":
		if len(pos) == 0 {
			return helpArgs(r, a.Topics())
		}
	case "completion":
		if len(pos) == 0 {
			var out []Candidate
			for _, s := range Shells {
				out = append(out, Candidate{Value: s})
			}
			return out
		}
	case "trust", "untrust":
		if len(pos) == 0 {
			return Files
		}
	case "task":
		// mcpc task get|result|cancel|list SERVER, then TASK_ID.
		switch {
		case len(r.Path) < 2 || adHoc:
		case len(pos) == 0:
			return a.Servers(r)
		case len(pos) == 1 && r.Path[1] != "list":
			return ServerWords(a.Tasks(r, pos[0]))
		}
	case "skills":
		// mcpc skills SERVER | skills get SERVER NAME: the server; skill
		// names would need the server contacted.
		if len(pos) == 0 && !adHoc {
			return a.Servers(r)
		}
	case "list", "call", "read", "prompt":
		switch {
		case adHoc:
		case len(pos) == 0:
			return a.Servers(r)
		default:
			return ServerWords(names(ctx, r, a))
		}
	}
	return nil
}

// helpArgs are the topics, then the commands that are not topics too.
func helpArgs(r Request, topics []Candidate) []Candidate {
	out := slices.Clone(topics)
	for _, c := range Subcommands(r.Root) {
		if !slices.ContainsFunc(out, func(o Candidate) bool { return o.Value == c.Name }) {
			out = append(out, Candidate{Value: c.Name, Description: c.Usage})
		}
	}
	return out
}

// ServerWords drops the candidates a server named that would start with
// "-": mcpc would read such a word as a flag (a tool named
// "--stdio=rm -rf ~" must not become a --stdio command), and no argument
// of mcpc's can start with one.
func ServerWords(cs []Candidate) []Candidate {
	return slices.DeleteFunc(cs, func(c Candidate) bool { return strings.HasPrefix(c.Value, "-") })
}

// nameKind is what the words after SERVER ask the server for: a list
// ("tools", "prompts", "resources", "templates"), an argument of a tool
// or prompt ("tool-args", "prompt-args"), or nothing ("").
func nameKind(r Request) string {
	cmd, pos := r.Path[0], r.Positional[1:]
	switch {
	case cmd == "list" && len(pos) == 0, cmd == "call" && len(pos) == 0:
		return "tools"
	case cmd == "list" && len(pos) == 1 && slices.Contains(listkind.Words(), pos[0]) && pos[0] != "resources":
		return pos[0]
	case cmd == "call":
		return "tool-args"
	case cmd == "read" && len(pos) == 0:
		return "resources"
	case cmd == "prompt" && len(pos) == 0:
		return "prompts"
	case cmd == "prompt":
		return "prompt-args"
	}
	return ""
}

// names asks the server named on the line what the words after SERVER
// can be, within LookupTimeout.
func names(ctx context.Context, r Request, a Answers) []Candidate {
	kind := nameKind(r)
	if kind == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, LookupTimeout)
	defer cancel()
	srv, closeFn, err := a.Open(ctx, r)
	if err != nil {
		return nil
	}
	defer closeFn()
	l := lookup{ctx: ctx, srv: srv, note: a.Note, pos: r.Positional[1:]}
	switch kind {
	case "tool-args", "prompt-args":
		// KEY=partial: the argument's values, not the names.
		if key, sep, partial, ok := argBeingValued(r.Current); ok {
			if kind == "prompt-args" {
				ref := &mcp.CompleteReference{Type: "ref/prompt", Name: l.pos[0]}
				return l.serverValues(ref, key, partial, givenArgs(l.pos[1:]), key+sep)
			}
			return l.schemaValues(key, sep)
		}
		return l.argNames(kind)
	}
	return l.list(kind, r)
}

// lookup is one live lookup: the server, and the words after SERVER.
type lookup struct {
	ctx  context.Context
	srv  Server
	note func(format string, args ...any)
	pos  []string
}

// list offers a list's names (a resource's URI; an item of a kind added
// to listkind.Kinds is named and described as a tool is); a tool list of
// mcpc list also the kinds, and a resource list also what the resource
// templates make of the word.
func (l lookup) list(kind string, r Request) []Candidate {
	raw, err := l.srv.ListRaw(l.ctx, kind)
	if err != nil {
		l.note("no names offered: %s", textsafe.OneLine(err.Error()))
		return nil
	}
	var out []Candidate
	switch {
	case kind == "resources":
		out = l.templateValues(r.Current)
	case kind == "tools" && r.Path[0] == "list":
		for _, k := range listkind.Words() {
			out = append(out, Candidate{Value: k, Description: "list the server's " + k})
		}
	}
	k, _ := listkind.Of(kind)
	rawmsg.View(raw).Get(k.Key).ForEach(func(_, item gjson.Result) bool {
		name := item.Get("name").String()
		switch kind {
		case "templates":
			out = append(out, Candidate{Value: name, Description: item.Get("uriTemplate").String()})
		case "resources":
			out = append(out, Candidate{Value: item.Get("uri").String(), Description: name})
		default:
			out = append(out, Candidate{Value: name, Description: item.Get("description").String()})
		}
		return true
	})
	return out
}

// argNames offers the arguments of the tool or prompt named after SERVER
// that are not on the line yet, as KEY=.
func (l lookup) argNames(kind string) []Candidate {
	list := map[string]string{"tool-args": "tools", "prompt-args": "prompts"}[kind]
	raw, err := l.srv.ListRaw(l.ctx, list)
	if err != nil {
		l.note("no names offered: %s", textsafe.OneLine(err.Error()))
		return nil
	}
	var out []Candidate
	rawmsg.View(raw).Get(list).ForEach(func(_, item gjson.Result) bool {
		if item.Get("name").String() != l.pos[0] {
			return true
		}
		if kind == "tool-args" {
			item.Get("inputSchema.properties").ForEach(func(k, v gjson.Result) bool {
				if !given(l.pos[1:], k.String()) {
					out = append(out, Candidate{Value: k.String() + "=", Description: v.Get("description").String()})
				}
				return true
			})
			return true
		}
		for _, a := range item.Get("arguments").Array() {
			if n := a.Get("name").String(); !given(l.pos[1:], n) {
				out = append(out, Candidate{Value: n + "=", Description: a.Get("description").String()})
			}
		}
		return true
	})
	return out
}
