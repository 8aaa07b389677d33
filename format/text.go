package format

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/mcpc-dev/mcpc/internal/blockbuf"
	"github.com/mcpc-dev/mcpc/internal/textsafe"
)

// queryText writes a selected value the way jq -r prints it: a string as its
// bare text, anything else as indented JSON; a line each. It is written in
// pieces, so that a large value is never held rendered.
func queryText(w io.Writer, n *node) error {
	if n.kind == nodeString {
		var err error
		p := &pieces{emit: func(b []byte) {
			if err == nil {
				_, err = w.Write(b)
			}
		}}
		p.node(n)
		p.str("\n")
		return err
	}
	// Unescaped: the text is stripped instead.
	r := renderer{limitBytes: -1, limitLines: -1, budget: -1, out: w, asIs: true}
	r.value(n, 0)
	r.write([]byte{'\n'})
	r.flush()
	return r.err
}

// renderText renders root as text for a person. A document that does not have
// the shape kind promises is pretty-printed as JSON instead, so nothing a
// server sends is hidden by a renderer that does not understand it.
func renderText(root *node, opts Options, notes io.Writer) string {
	var b blockbuf.Buf
	renderTextTo(&b, root, opts, notes)
	return string(b.Bytes())
}

// textOut is what text is rendered into: a blockbuf.Buf, so that the
// table of a list of 200,000 tools (12 MB) is not held in a buffer grown
// by doubling, twice at its last growth; a strings.Builder in tests.
type textOut interface {
	io.Writer
	io.StringWriter
	io.ByteWriter
}

// renderTextTo is renderText into b.
func renderTextTo(b *blockbuf.Buf, root *node, opts Options, notes io.Writer) {
	ok := false
	switch opts.Kind {
	case KindCallTool:
		ok = callToolText(b, root)
	case KindReadResource:
		ok = readResourceText(b, root)
	case KindGetPrompt:
		ok = getPromptText(b, root)
	case KindSkillList:
		ok = skillListText(b, notes, root, opts.Width)
	case KindTool:
		ok = describeTool(b, root, opts)
	case KindPrompt:
		ok = describePrompt(b, root, opts)
	case KindTemplate:
		ok = describeTemplate(b, root, opts)
	case KindServerList:
		ok = serverListText(b, notes, root, opts.Width)
	default:
		if t, found := listTables[opts.Kind]; found {
			ok = listText(b, notes, root, opts.Width, t.key, t.empty, t.header, t.row)
		}
	}
	if !ok {
		b.Reset()
		b.Write(renderAll(root, 0))
	}
}

// listTable is how a list kind is shown as a table: the member that holds
// the list, the note for an empty one, the columns and an item's row.
type listTable struct {
	key, empty string
	header     []string
	row        func(*node) []string
}

// listTables are the list kinds whose columns do not depend on the list:
// a server's lists (listViews) and mcpc's own.
var listTables = withLists(map[Kind]listTable{
	KindServerCheck: {"servers", "no servers configured",
		[]string{"NAME", "TRANSPORT", "STATUS", "REVISION", "TOOLS", "TIME"}, checkRow},
	KindConfig: {"servers", "no servers configured",
		[]string{"NAME", "TRANSPORT", "SOURCE", "TARGET"}, configRow},
	KindImportList: {"sources", "no other app's MCP servers found",
		[]string{"APP", "SCOPE", "SERVERS", "CLASHES", "FILE"}, importRow},
})

// toolRow is a tool's line of mcpc list tools.
func toolRow(t *node) []string {
	title, _ := t.getString("title")
	if title == "" {
		title, _ = t.get("annotations").getString("title")
	}
	if title == "" {
		title = "-"
	}
	desc := summary(str(t, "description"))
	// A tool that must run as a task says so up front: calling it
	// plainly fails.
	switch ts, _ := t.get("execution").getString("taskSupport"); ts {
	case "required":
		desc = "[task required] " + desc
	case "optional":
		desc = "[task optional] " + desc
	}
	return []string{str(t, "name"), title, toolArguments(t), desc}
}

// serverListText renders mcpc list's servers; the AUTH column shows only
// when some server has credentials.
func serverListText(b textOut, notes io.Writer, root *node, width int) bool {
	withAuth := false
	if items, ok := root.getArray("servers"); ok {
		for _, it := range items {
			withAuth = withAuth || str(it, "auth") != ""
		}
	}
	header := []string{"NAME", "TRANSPORT", "STATUS", "SOURCE"}
	if withAuth {
		header = []string{"NAME", "TRANSPORT", "STATUS", "AUTH", "SOURCE"}
	}
	return listText(b, notes, root, width, "servers", "no servers configured", header,
		func(s *node) []string {
			status := serverStatus(s)
			if withAuth {
				return []string{str(s, "name"), str(s, "transport"), status, cmp.Or(str(s, "auth"), "-"), str(s, "source")}
			}
			return []string{str(s, "name"), str(s, "transport"), status, str(s, "source")}
		})
}

// serverStatus is one word that says both whether a server's file is
// trusted and whether this definition is the one its name resolves to.
func serverStatus(s *node) string {
	switch {
	case !s.isTrue("trusted"):
		return "untrusted"
	case s.isTrue("disabled"):
		return "disabled"
	case str(s, "unusable") != "":
		return "unusable"
	case s.isTrue("active") && s.isTrue("session"):
		return "session"
	case s.isTrue("active"):
		return "active"
	}
	return "overridden"
}

// checkRow is a server's line of mcpc list --check; "-" for what a
// server that was not reached (or declares no tools) cannot say.
func checkRow(s *node) []string {
	tools, ms := "-", "-"
	if n, ok := integer(s, "tools"); ok {
		tools = strconv.Itoa(n)
	}
	if v := s.get("ms"); v != nil && v.kind == nodeLiteral {
		ms = string(v.raw) + "ms"
	}
	return []string{str(s, "name"), str(s, "transport"), str(s, "status"), cmp.Or(str(s, "revision"), "-"), tools, ms}
}

func str(n *node, key string) string {
	s, _ := n.getString(key)
	return s
}

func integer(n *node, key string) (int, bool) {
	v := n.get(key)
	if v == nil || v.kind != nodeLiteral {
		return 0, false
	}
	i, err := strconv.Atoi(string(v.raw))
	return i, err == nil
}

// writeLine writes s and makes sure it ends the line, so that one block's last
// line never runs into the next block.
func writeLine(b textOut, s string) {
	b.WriteString(s)
	if !strings.HasSuffix(s, "\n") {
		b.WriteByte('\n')
	}
}

// callToolText renders a CallToolResult whole (see callToolPieces).
func callToolText(b textOut, root *node) bool {
	return callToolPieces(root, &pieces{emit: func(s []byte) { b.Write(s) }})
}

// repeats reports whether a text content block holds the same JSON value
// as v, as servers commonly serialize structuredContent into the text.
func repeats(item, v *node) bool {
	if typ, _ := item.getString("type"); typ != "text" {
		return false
	}
	text, _ := item.getString("text")
	var a, b any
	if json.Unmarshal([]byte(text), &a) != nil || json.Unmarshal(appendCompact(nil, v), &b) != nil {
		return false
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return bytes.Equal(ja, jb)
}

// blockText renders one content block: text as itself, everything else as a
// one-line summary in brackets.
func blockText(item *node) string {
	typ, _ := item.getString("type")
	switch typ {
	case "text":
		return str(item, "text")
	case "image", "audio":
		return payloadSummary(typ, item, "data", " ", ", ")
	case "resource_link":
		return fmt.Sprintf("[resource link: %s <%s>]", str(item, "name"), str(item, "uri"))
	case "resource":
		r := item.get("resource")
		if text, ok := r.getString("text"); ok {
			return text
		}
		return payloadSummary("resource "+str(r, "uri"), r, "blob", ", ", ", ")
	}
	return fmt.Sprintf("[unsupported content type %q]", typ)
}

// payloadSummary describes a base64 payload under key (left inline, saved by
// the media pass, or omitted) as "[LABEL MIME, N bytes: saved to PATH]". The
// separators differ between block types only to match the documented forms.
func payloadSummary(label string, n *node, key, mimeSep, sizeSep string) string {
	var b strings.Builder
	b.WriteString("[" + label)
	if mt := str(n, "mimeType"); mt != "" {
		b.WriteString(mimeSep + mt)
	}
	size, known := integer(n, key+"Bytes")
	if data, ok := n.getString(key); ok && !known {
		size, known = decodedSize(data), true
	}
	if known {
		b.WriteString(sizeSep + strconv.Itoa(size) + " bytes")
	}
	if path, ok := n.getString(key + "File"); ok {
		b.WriteString(": saved to " + path)
	} else if n.isTrue(key + "Omitted") {
		b.WriteString(": omitted")
	}
	b.WriteByte(']')
	return b.String()
}

func readResourceText(b textOut, root *node) bool {
	contents, ok := root.getArray("contents")
	if !ok {
		return false
	}
	for _, c := range contents {
		if text, ok := c.getString("text"); ok {
			writeLine(b, text)
			continue
		}
		writeLine(b, payloadSummary("blob "+str(c, "uri"), c, "blob", " ", " "))
	}
	return true
}

func getPromptText(b textOut, root *node) bool {
	messages, ok := root.getArray("messages")
	if !ok {
		return false
	}
	if desc := str(root, "description"); desc != "" {
		writeLine(b, desc)
	}
	for _, m := range messages {
		content := m.get("content")
		var parts []string
		switch {
		case content == nil:
		case content.kind == nodeArray:
			for _, item := range content.kids {
				parts = append(parts, strings.TrimSuffix(blockText(item), "\n"))
			}
		default:
			parts = append(parts, strings.TrimSuffix(blockText(content), "\n"))
		}
		writeLine(b, str(m, "role")+": "+strings.Join(parts, "\n"))
	}
	return true
}

// listText renders the array under key as an aligned table, fitted to width
// (see table). An empty list prints nothing, so that `mcpc list | wc -l`
// counts items, and says so on notes instead.
func listText(b textOut, notes io.Writer, root *node, width int, key, empty string,
	header []string, row func(*node) []string) bool {
	items, ok := root.getArray(key)
	if root.kind != nodeObject || (!ok && root.get(key) != nil) {
		return false
	}
	if len(items) == 0 {
		textsafe.Note(notes, "%s", empty)
		return true
	}
	// Two passes over the items, the first for the widths of the columns:
	// no row is kept, so a list of many items (parsed capped, the most of
	// them left raw) is never held as a table.
	each := func(f func(cells []string)) {
		do := func(item *node) {
			cells := row(item)
			for i, c := range cells {
				cells[i] = textsafe.OneLine(c)
			}
			f(cells)
		}
		for _, item := range items {
			do(item)
		}
		if list := root.get(key); list.rest != nil {
			list.eachRest(func(_ []byte, item *node) bool {
				do(item)
				return true
			})
		}
	}
	writeTable(b, header, width, each)
	return true
}

// summary shortens a description to its first non-blank line; the table
// cuts it further to fit a terminal, and never when piped.
func summary(s string) string {
	for _, line := range strings.Split(textsafe.StripControl(s), "\n") {
		if line = textsafe.OneLine(line); line != "" {
			return line
		}
	}
	return ""
}

func promptArguments(p *node) string {
	args, _ := p.getArray("arguments")
	var names []string
	for _, a := range args {
		name := str(a, "name")
		if a.isTrue("required") {
			name += "*"
		}
		names = append(names, name)
	}
	if len(names) == 0 {
		return "-"
	}
	return strings.Join(names, ", ")
}

// importRow is one file another app keeps servers in: how many, and which
// names the target file already has.
func importRow(s *node) []string {
	count := "unreadable"
	if str(s, "error") == "" {
		servers, _ := s.getArray("servers")
		count = strconv.Itoa(len(servers))
	}
	var clashes []string
	list, _ := s.getArray("clashes")
	for _, c := range list {
		clashes = append(clashes, plain(c))
	}
	return []string{str(s, "app"), str(s, "scope"), count, cmp.Or(strings.Join(clashes, ","), "-"), str(s, "file")}
}

// skillListText shows a skill's name, its number of files and their size
// (from the entry: nothing was read), and its description. Two skills of
// one name are told apart by their paths, which NAME then shows.
func skillListText(b textOut, notes io.Writer, root *node, width int) bool {
	items, _ := root.getArray("skills")
	count := map[string]int{}
	for _, it := range items {
		count[str(it.get("frontmatter"), "name")]++
	}
	return listText(b, notes, root, width, "skills", "server lists no skills",
		[]string{"NAME", "FILES", "SIZE", "DESCRIPTION"},
		func(s *node) []string {
			fm := s.get("frontmatter")
			name := str(fm, "name")
			if count[name] > 1 {
				_, rest, _ := strings.Cut(str(s, "uri"), "://")
				name = strings.TrimSuffix(rest, "/SKILL.md")
			}
			files, size := "dynamic", "-"
			if res, ok := s.getArray("resources"); ok {
				total := 0
				for _, r := range res {
					n, _ := integer(r, "size")
					total += n
				}
				files, size = strconv.Itoa(len(res)), strconv.Itoa(total)+" bytes"
			}
			return []string{name, files, size, summary(str(fm, "description"))}
		})
}
