package format

import (
	"regexp"
	"strings"
	"sync"

	"github.com/mcpc-dev/mcpc/internal/shellwords"
	"github.com/mcpc-dev/mcpc/internal/textsafe"
)

// Example is how the server is named on a command line, so that a
// description can end with a line the user can paste.
type Example struct {
	Server string // the words naming the server, already quoted: "everything", "--stdio testserver"
	Tail   string // words after everything else, already quoted: "-- node server.js"
}

func (e Example) line(verb, name string, args []string) string {
	words := []string{"mcpc", verb}
	switch {
	case e.Server != "":
		words = append(words, e.Server)
	case e.Tail == "":
		words = append(words, "SERVER")
	}
	words = append(append(words, shellwords.Quote(name)), args...)
	if e.Tail != "" {
		words = append(words, e.Tail)
	}
	return strings.Join(words, " ")
}

// describeTool renders one tool for a person deciding how to call it:
// what it is, what it may do, each argument, and a command line to start
// from.
func describeTool(b textOut, t *node, opts Options) bool {
	name, ok := t.getString("name")
	if t.kind != nodeObject || !ok {
		return false
	}
	title := str(t, "title")
	if title == "" {
		title = str(t.get("annotations"), "title")
	}
	heading(b, name, title, str(t, "description"))
	var about []string
	if words := annotationWords(t.get("annotations")); len(words) > 0 {
		about = append(about, "Annotations: "+strings.Join(words, ", "))
	}
	if uri := uiResource(t); strings.TrimSpace(uri) != "" {
		about = append(about, "UI resource: "+textsafe.OneLine(uri)+" (shown, not rendered: "+textsafe.OneLine(opts.Example.line("read", uri, nil))+")")
	}
	if len(about) > 0 {
		b.WriteString("\n" + strings.Join(about, "\n") + "\n")
	}
	params := schemaParams(t.get("inputSchema"))
	if len(params) == 0 {
		b.WriteString("\nArguments: none\n")
	} else {
		rows := make([][]string, 0, len(params))
		for _, p := range params {
			rows = append(rows, []string{p.name, p.typ, yesNo(p.required), dash(p.def), dash(p.enum), dash(p.desc)})
		}
		b.WriteString("\n" + table([]string{"ARGUMENT", "TYPE", "REQUIRED", "DEFAULT", "VALUES", "DESCRIPTION"}, rows, opts.Width))
	}
	var args []string
	for _, p := range params {
		if p.required {
			args = append(args, p.example())
		}
	}
	b.WriteString("\nExample:\n  " + textsafe.OneLine(opts.Example.line("call", name, args)) + "\n")
	return true
}

func describePrompt(b textOut, p *node, opts Options) bool {
	name, ok := p.getString("name")
	if p.kind != nodeObject || !ok {
		return false
	}
	heading(b, name, str(p, "title"), str(p, "description"))
	list, _ := p.getArray("arguments")
	var rows [][]string
	var args []string
	for _, a := range list {
		n := textsafe.OneLine(str(a, "name"))
		rows = append(rows, []string{n, yesNo(a.isTrue("required")), dash(summary(str(a, "description")))})
		if a.isTrue("required") {
			args = append(args, shellwords.Quote(n+"="+strings.ToUpper(n)))
		}
	}
	if len(rows) == 0 {
		b.WriteString("\nArguments: none\n")
	} else {
		b.WriteString("\n" + table([]string{"ARGUMENT", "REQUIRED", "DESCRIPTION"}, rows, opts.Width))
	}
	b.WriteString("\nExample:\n  " + textsafe.OneLine(opts.Example.line("prompt", name, args)) + "\n")
	return true
}

// templateVar is compiled on first use, not at every start-up.
var templateVar = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\{[^}]*\}`) })

func describeTemplate(b textOut, t *node, opts Options) bool {
	tmpl, ok := t.getString("uriTemplate")
	if t.kind != nodeObject || !ok {
		return false
	}
	heading(b, str(t, "name"), str(t, "title"), str(t, "description"))
	b.WriteString("\nURI template: " + textsafe.OneLine(tmpl) + "\n")
	if mt := str(t, "mimeType"); mt != "" {
		b.WriteString("MIME type: " + textsafe.OneLine(mt) + "\n")
	}
	// {id} becomes ID: the spot to fill in is plain to see. Query
	// expansions ({?q}) are optional and left out.
	uri := templateVar().ReplaceAllStringFunc(tmpl, func(v string) string {
		if strings.HasPrefix(v, "{?") || strings.HasPrefix(v, "{&") {
			return ""
		}
		return strings.ToUpper(strings.TrimLeft(v[1:len(v)-1], "+#./;"))
	})
	b.WriteString("\nExample:\n  " + textsafe.OneLine(opts.Example.line("read", uri, nil)) + "\n")
	return true
}

// heading writes "name: title" and the whole description.
func heading(b textOut, name, title, desc string) {
	h := textsafe.OneLine(name)
	if title = textsafe.OneLine(title); title != "" && title != h {
		h += ": " + title
	}
	b.WriteString(h + "\n")
	desc = strings.TrimSpace(textsafe.StripControl(desc))
	if desc != "" {
		b.WriteString(desc + "\n")
	}
}

// uiResource is the MCP Apps view a tool names: _meta.ui.resourceUri, or
// the flat _meta["ui/resourceUri"] the 2026-01-26 extension deprecates,
// which a host reads only when the first is absent. mcpc renders no app,
// so the describe view names it and how to read it as text.
func uiResource(t *node) string {
	meta := t.get("_meta")
	if uri := str(meta.get("ui"), "resourceUri"); uri != "" {
		return uri
	}
	return str(meta, "ui/resourceUri")
}

// annotationWords turns a tool's behaviour hints into short words. Only
// hints the server set are shown: the defaults the spec gives for absent
// ones would put words in the server's mouth.
func annotationWords(a *node) []string {
	var words []string
	for _, h := range []struct{ key, yes, no string }{
		{"readOnlyHint", "read-only", ""},
		{"destructiveHint", "destructive", "non-destructive"},
		{"idempotentHint", "idempotent", ""},
		{"openWorldHint", "open-world", "closed-world"},
	} {
		v := a.get(h.key)
		switch {
		case v == nil || v.kind != nodeLiteral:
		case string(v.raw) == "true":
			words = append(words, h.yes)
		case string(v.raw) == "false" && h.no != "":
			words = append(words, h.no)
		}
	}
	return words
}

type param struct {
	name, typ, def, enum, desc string
	required                   bool
	enumFirst                  string
}

// example is a key=value word that has the argument's shape: an enum's
// first value, the default, or a placeholder the user replaces.
func (p param) example() string {
	v := p.enumFirst
	if v == "" {
		v = p.def
	}
	if v == "" {
		switch p.typ {
		case "integer", "number":
			v = "1"
		case "boolean":
			v = "true"
		case "object":
			return shellwords.Quote(p.name + ":={}")
		default:
			if strings.HasSuffix(p.typ, "[]") || p.typ == "array" {
				return shellwords.Quote(p.name + ":=[]")
			}
			v = strings.ToUpper(p.name)
		}
	}
	return shellwords.Quote(p.name + "=" + v)
}

// schemaParams lists the properties of an object schema, required ones
// first, each group in the schema's own order.
func schemaParams(schema *node) []param {
	props := schema.get("properties")
	if props == nil || props.kind != nodeObject {
		return nil
	}
	required := map[string]bool{}
	if req, ok := schema.getArray("required"); ok {
		for _, r := range req {
			if r.kind == nodeString {
				required[r.str()] = true
			}
		}
	}
	var first, rest []param
	for i, k := range props.keys {
		kn := &node{kind: nodeString, raw: k}
		p := props.kids[i]
		pr := param{
			name:     textsafe.OneLine(kn.str()),
			typ:      schemaType(p),
			required: required[kn.str()],
			desc:     summary(str(p, "description")),
		}
		if d := p.get("default"); d != nil {
			pr.def = textsafe.OneLine(plain(d))
		}
		if e, ok := p.getArray("enum"); ok {
			var vals []string
			for _, v := range e {
				vals = append(vals, textsafe.OneLine(plain(v)))
			}
			pr.enum = strings.Join(vals, "|")
			if len(vals) > 0 {
				pr.enumFirst = vals[0]
			}
		}
		if pr.required {
			first = append(first, pr)
		} else {
			rest = append(rest, pr)
		}
	}
	return append(first, rest...)
}

// schemaType says in one word what a property takes: its type (string[]
// for an array of strings, a|b for a union), or "any".
func schemaType(p *node) string {
	t := p.get("type")
	switch {
	case t != nil && t.kind == nodeString:
		s := t.str()
		if s == "array" {
			if it := schemaType(p.get("items")); it != "any" {
				return it + "[]"
			}
		}
		return s
	case t != nil && t.kind == nodeArray:
		var parts []string
		for _, k := range t.kids {
			if k.kind == nodeString {
				parts = append(parts, k.str())
			}
		}
		return strings.Join(parts, "|")
	case p.get("enum") != nil:
		return "enum"
	}
	for _, key := range []string{"anyOf", "oneOf"} {
		if alts, ok := p.getArray(key); ok && len(alts) > 0 {
			var parts []string
			for _, a := range alts {
				parts = append(parts, schemaType(a))
			}
			return strings.Join(parts, "|")
		}
	}
	return "any"
}

// toolArguments is the ARGUMENTS cell of a tool list: required names
// (marked *) first.
func toolArguments(t *node) string {
	var names []string
	for _, p := range schemaParams(t.get("inputSchema")) {
		n := p.name
		if p.required {
			n += "*"
		}
		names = append(names, n)
	}
	if len(names) == 0 {
		return "-"
	}
	return strings.Join(names, ", ")
}

// plain is a JSON value as a user would type it: strings bare, the rest
// as compact JSON.
func plain(n *node) string {
	if n.kind == nodeString {
		return n.str()
	}
	return string(appendCompact(nil, n))
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// configRow is one server of `mcpc config`: what it runs or reaches.
func configRow(s *node) []string {
	srv := s.get("server")
	target, transport := str(srv, "url"), "http"
	if str(srv, "type") == "sse" {
		transport = "sse"
	}
	if target == "" {
		transport = "stdio"
		words := []string{str(srv, "command")}
		args, _ := srv.getArray("args")
		for _, a := range args {
			words = append(words, plain(a))
		}
		target = shellwords.Join(words)
	}
	switch {
	case srv.isTrue("disabled"):
		target += " (disabled)"
	case str(s, "unusable") != "":
		target += " (unusable)"
	}
	return []string{str(s, "name"), transport, str(s, "source"), target}
}
