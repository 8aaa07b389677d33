package commands

import (
	"context"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tidwall/gjson"

	"github.com/mcpc-dev/mcpc/client"
	"github.com/mcpc-dev/mcpc/completions"
	"github.com/mcpc-dev/mcpc/internal/textsafe"
)

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
		c.note("no names offered: %s", textsafe.OneLine(err.Error()))
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
		c.note("no values offered for %q: %s", arg, textsafe.OneLine(err.Error()))
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
