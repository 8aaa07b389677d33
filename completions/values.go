package completions

import (
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tidwall/gjson"

	"github.com/mcpc-dev/mcpc/internal/listkind"
	"github.com/mcpc-dev/mcpc/internal/rawmsg"
	"github.com/mcpc-dev/mcpc/internal/textsafe"
)

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
func (l lookup) serverValues(ref *mcp.CompleteReference, arg, partial string, args map[string]string, prefix string) []Candidate {
	values, more, err := l.srv.Complete(l.ctx, ref, arg, partial, args)
	if err != nil {
		l.note("no values offered for %q: %s", arg, textsafe.OneLine(err.Error()))
		return nil
	}
	if more {
		l.note("%s has more values for %q than the %d offered: type more of the value to narrow them", l.srv.Label(), arg, len(values))
	}
	var out []Candidate
	for _, v := range values {
		out = append(out, Candidate{Value: prefix + v})
	}
	return out
}

// schemaValues offers what the input schema of the tool named after
// SERVER allows for one argument: its enum, its const, or true and false.
// A KEY:= word gets JSON values.
func (l lookup) schemaValues(key, sep string) []Candidate {
	raw, err := l.srv.ListRaw(l.ctx, "tools")
	if err != nil {
		return nil
	}
	var prop gjson.Result
	rawmsg.View(raw).Get("tools").ForEach(func(_, t gjson.Result) bool {
		if t.Get("name").String() == l.pos[0] {
			prop = t.Get("inputSchema.properties." + gjson.Escape(key))
		}
		return true
	})
	var values []gjson.Result
	switch {
	case prop.Get("enum").IsArray():
		values = prop.Get("enum").Array()
	case prop.Get("const").Exists():
		values = []gjson.Result{prop.Get("const")}
	case prop.Get("type").String() == "boolean":
		values = gjson.Parse(`[true,false]`).Array()
	}
	var out []Candidate
	for _, v := range values {
		text := v.String()
		if sep == ":=" || v.Type == gjson.JSON {
			text = v.Raw
		}
		out = append(out, Candidate{Value: key + sep + text, Description: prop.Get("description").String()})
	}
	return out
}

// templateValues completes a URI against the server's resource templates:
// the template's text up to its first variable, then, inside a variable,
// the values the server offers for it (with the variables before it as
// the context).
func (l lookup) templateValues(word string) []Candidate {
	templates, _ := listkind.Of("templates")
	raw, err := l.srv.ListRaw(l.ctx, templates.Word)
	if err != nil {
		return nil
	}
	var out []Candidate
	rawmsg.View(raw).Get(templates.Key).ForEach(func(_, t gjson.Result) bool {
		tpl := t.Get("uriTemplate").String()
		m, ok := MatchTemplate(tpl, word)
		switch {
		case !ok:
		case m.Variable == "":
			out = append(out, Candidate{Value: m.Prefix, Description: "template " + t.Get("name").String()})
		default:
			ref := &mcp.CompleteReference{Type: "ref/resource", URI: tpl}
			out = append(out, l.serverValues(ref, m.Variable, m.Partial, m.Vars, m.Prefix)...)
		}
		return true
	})
	return out
}
