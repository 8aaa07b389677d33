package format

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/mcpc-dev/mcpc/internal/blockbuf"
	"github.com/mcpc-dev/mcpc/internal/textsafe"
)

// Mode selects the output form.
type Mode int

const (
	// ModeJSON prints one valid JSON document, for scripts and pipes.
	ModeJSON Mode = iota
	// ModeText prints text for a person at a terminal.
	ModeText
)

// Kind tells the text renderer what the JSON is.
type Kind int

const (
	KindGeneric      Kind = iota // any JSON: text mode pretty-prints it
	KindCallTool                 // CallToolResult: {content:[...], structuredContent?, isError?}
	KindReadResource             // ReadResourceResult: {contents:[{uri,mimeType?,text|blob}]}
	KindGetPrompt                // GetPromptResult: {description?, messages:[{role, content:{...}}]}
	KindToolList                 // {"tools":[{name,title?,description?,inputSchema,annotations?{title?}}]}
	KindResourceList             // {"resources":[{uri,name,title?,description?,mimeType?}]}
	KindTemplateList             // {"resourceTemplates":[{uriTemplate,name,title?,description?}]}
	KindPromptList               // {"prompts":[{name,title?,description?,arguments?[{name,required?}]}]}
	KindServerList               // {"servers":[{name,transport,source,trusted,session?}],"errors"?:[{file,message}]} (mcpc's own config listing)
	KindConfig                   // {"servers":[{name,source,server:{command?,args?,url?}}],"errors"?:[{file,message}]} (mcpc config)
	KindTool                     // one Tool: {name,title?,description?,inputSchema,annotations?}
	KindPrompt                   // one Prompt: {name,title?,description?,arguments?}
	KindTemplate                 // one ResourceTemplate: {uriTemplate,name,title?,description?,mimeType?}
	KindImportList               // {"sources":[{app,scope,file,servers:[names],clashes:[names],error?}]} (mcpc config import)
	KindSkillList                // {"skills":[{uri,frontmatter:{name,description},resources:[{size}]|"dynamic"}]} (skills/list)
	KindServerCheck              // {"servers":[{name,transport,status,revision?,tools?,ms?}]} (mcpc list --check)
)

// Defaults for the zero values of Options.
const (
	DefaultMaxBytes      = 50 * 1024
	DefaultMaxLines      = 2000
	DefaultMaxMedia      = 4
	DefaultMaxMediaBytes = 2 << 20
)

// Options controls Write.
type Options struct {
	Mode  Mode
	Kind  Kind
	Query string // gjson path; "" = none

	// Inline bounds on stdout. <= 0 means the default (DefaultMaxBytes,
	// DefaultMaxLines); values below MinMaxBytes and MinMaxLines are raised to
	// them.
	MaxBytes int
	MaxLines int

	// MaxMedia is how many image/audio items stay inline: 0 means
	// DefaultMaxMedia, negative means none. MaxMediaBytes is the largest
	// base64 length of one inline item or blob: 0 means DefaultMaxMediaBytes,
	// negative means none.
	MaxMedia      int
	MaxMediaBytes int

	// Width is the terminal's width in columns: tables are fitted to it.
	// 0 (not a terminal) never cuts anything.
	Width int

	// Example names the server in the example command line of a
	// KindTool, KindPrompt or KindTemplate description.
	Example Example

	// Overflow receives full results and extracted media. When nil no file is
	// written: output is still truncated and media still left out, just
	// without a file to point to.
	Overflow *Overflow
}

func (o Options) normalized() Options {
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.MaxLines <= 0 {
		o.MaxLines = DefaultMaxLines
	}
	o.MaxBytes = max(o.MaxBytes, MinMaxBytes)
	o.MaxLines = max(o.MaxLines, MinMaxLines)
	switch {
	case o.MaxMedia == 0:
		o.MaxMedia = DefaultMaxMedia
	case o.MaxMedia < 0:
		o.MaxMedia = 0
	}
	switch {
	case o.MaxMediaBytes == 0:
		o.MaxMediaBytes = DefaultMaxMediaBytes
	case o.MaxMediaBytes < 0:
		o.MaxMediaBytes = -1
	}
	return o
}

// Write renders result to out. Notes for the user (truncation, media saved) go
// to notes, normally stderr, as lines "mcpc: note: ...", so that stdout carries
// the result only. It returns an error only for bad input (ErrInvalidJSON, a
// *QueryError) or failed I/O on out or the overflow directory; the input is
// checked before anything is written.
func Write(out, notes io.Writer, result []byte, opts Options) error {
	opts = opts.normalized()
	if opts.Query != "" {
		if err := CheckQuery(opts.Query); err != nil {
			return err
		}
	}
	var root *node
	if opts.Query != "" && mediaFree(result) {
		// No media for the media pass to move: the query reads the result
		// as it arrived, and only what it selects becomes a tree.
		if !json.Valid(result) {
			return ErrInvalidJSON
		}
		var err error
		if root, err = applyQuery(result, opts); err != nil {
			return err
		}
	} else {
		var err error
		if root, err = parse(result, opts); err != nil {
			return err
		}
		media := mediaPass{opts: opts, notes: notes}
		if err := media.walk(root); err != nil {
			return err
		}
		if opts.Query != "" {
			src := result
			if media.changed {
				src = appendCompact(nil, root)
			}
			if root, err = applyQuery(src, opts); err != nil {
				return err
			}
		}
	}
	if opts.Mode == ModeText {
		if opts.Query == "" && opts.Kind == KindCallTool {
			if ok, err := writeCallTool(out, notes, root, opts); ok {
				return err
			}
		}
		if opts.Query != "" {
			return writeStripped(out, notes, func(w io.Writer) error { return queryText(w, root) }, opts)
		}
		var b blockbuf.Buf
		renderTextTo(&b, root, opts, notes)
		return writeStripped(out, notes, func(w io.Writer) error {
			_, err := b.WriteTo(w)
			return err
		}, opts)
	}
	return writeJSON(out, notes, root, opts)
}

// mediaFree reports whether result holds nothing the media pass would move (no
// "data" or "blob" key, even escaped) and no invalid UTF-8, which parsing
// repairs: a tree of it is then only needed for what is rendered of it.
func mediaFree(result []byte) bool {
	return !bytes.Contains(result, []byte(`"data"`)) && !bytes.Contains(result, []byte(`"blob"`)) &&
		!bytes.Contains(result, []byte(`\u`)) && utf8.Valid(result)
}

// capAbove is the size from which a JSON result is parsed capped.
const capAbove = 1 << 20

// parse builds the tree Write works on. A large result printed as bounded
// JSON, or as the text of a tool's result, keeps only the elements of each
// container a bounded rendering can show (each takes a line) as nodes,
// when nothing else needs the others:
// no query, and no media the media pass would move (no "data" or "blob"
// key, even escaped); and no invalid UTF-8, which parsing repairs.
func parse(result []byte, opts Options) (*node, error) {
	if (opts.Mode == ModeJSON || opts.Kind == KindCallTool) && opts.Query == "" && capped(result, opts) {
		return parseCapped(result, opts.MaxLines+1)
	}
	// A server's list as a table: only the list itself is capped (its
	// items are all read, one at a time, and one item's own long arrays
	// are shown whole).
	if opts.Mode == ModeText && opts.Query == "" && len(result) > capAbove && mediaFree(result) {
		switch opts.Kind {
		case KindToolList, KindResourceList, KindTemplateList, KindPromptList:
			return parseShallow(result)
		}
	}
	return parseJSON(result)
}

// capped reports whether result is large enough to be parsed capped, and
// plain enough for it.
func capped(result []byte, opts Options) bool {
	return len(result) > capAbove && opts.MaxLines < capAbove && mediaFree(result)
}

func writeJSON(out, notes io.Writer, root *node, opts Options) error {
	// A rendering that goes over the limits stops there, so a large result
	// is never rendered whole in memory.
	r := renderer{limitBytes: opts.MaxBytes - 1, limitLines: opts.MaxLines - 1, budget: -1}
	r.value(root, 0)
	if !r.over {
		full := escapeHostile(append(r.buf, '\n'))
		if len(full) <= opts.MaxBytes && bytes.Count(full, []byte{'\n'}) <= opts.MaxLines {
			_, err := out.Write(full)
			return err
		}
	}
	// The full rendering streams to the overflow file, measured on the way.
	var count countWriter
	render := func(w io.Writer) error {
		count = countWriter{w: w}
		r := renderer{limitBytes: -1, limitLines: -1, budget: -1, out: &count}
		r.value(root, 0)
		r.write([]byte{'\n'})
		r.flush()
		return r.err
	}
	// The tool ran: a full result that cannot be saved (over the cap, a
	// full disk) is still printed bounded, with a note saying so.
	path, unsaved := "", "no overflow directory"
	rendered := false
	if opts.Overflow != nil {
		var err error
		if path, err = opts.Overflow.SaveStream("result", ".json", func(w io.Writer) error {
			rendered = true
			return render(w)
		}); err != nil {
			unsaved = opts.Overflow.unsavedBecause(err)
		}
	}
	if !rendered {
		render(io.Discard) // measured all the same
	}
	marker := map[string]any{"truncated": true, "bytes": count.n, "lines": count.lines}
	if path != "" {
		marker["file"] = path
	}
	short := escapeHostile(truncateTree(root, opts.MaxBytes, opts.MaxLines, marker))
	if _, err := out.Write(short); err != nil {
		return err
	}
	noteTruncated(notes, short, count.n, path, unsaved)
	return nil
}

// countWriter counts the bytes and lines written through it.
type countWriter struct {
	w        io.Writer
	n, lines int
}

func (c *countWriter) Write(p []byte) (int, error) {
	c.n += len(p)
	c.lines += bytes.Count(p, []byte{'\n'})
	return c.w.Write(p)
}

// writeText bounds text at a line boundary; a cut leaves a last line that says
// where the rest is, and the whole text goes to the overflow directory.
func writeText(out, notes io.Writer, text string, opts Options) error {
	return writeStripped(out, notes, func(w io.Writer) error {
		// In pieces: a writer without WriteString would copy it whole.
		for s := text; len(s) > 0; {
			n := min(len(s), textChunk)
			if _, err := io.WriteString(w, s[:n]); err != nil {
				return err
			}
			s = s[n:]
		}
		return nil
	}, opts)
}

// writeStripped is writeText for the text that text writes, in pieces. It
// is stripped on the way (a Stripper, so that no stripped copy is held
// whole): once to measure it and keep what the bounds can show, and again
// into the overflow file when it does not fit.
func writeStripped(out, notes io.Writer, text func(io.Writer) error, opts Options) error {
	m := measurer{head: make([]byte, 0, min(opts.MaxBytes, 1<<20)), max: opts.MaxBytes}
	if err := stripTo(&m, text); err != nil {
		return err
	}
	return writeBounded(out, notes, string(m.head), m.size, m.lines, m.last == '\n', func(w io.Writer) error {
		return stripTo(w, text)
	}, opts)
}

// stripTo writes what text writes to w, stripped.
func stripTo(w io.Writer, text func(io.Writer) error) error {
	st := textsafe.NewStripper(w)
	if err := text(st); err != nil {
		return err
	}
	return st.Flush()
}

// measurer counts the bytes and lines of a text written through it, and
// keeps its first max bytes.
type measurer struct {
	head        []byte
	max         int
	size, lines int
	last        byte
}

func (m *measurer) Write(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	m.size += len(b)
	m.lines += bytes.Count(b, []byte{'\n'})
	m.last = b[len(b)-1]
	if room := m.max - len(m.head); room > 0 {
		m.head = append(m.head, b[:min(room, len(b))]...)
	}
	return len(b), nil
}

// writeBounded is writeText for a text of size bytes and lines newlines,
// ending with one or not, that whole writes out; head is its first
// opts.MaxBytes bytes (or all of it), all that is printed of it.
func writeBounded(out, notes io.Writer, head string, size, lines int, endsLine bool,
	whole func(io.Writer) error, opts Options) error {
	// The final newline is written apart: appending it would copy a large
	// text whole.
	nl := ""
	if size > 0 && !endsLine {
		nl = "\n"
	}
	size += len(nl)
	if size <= opts.MaxBytes && lines+len(nl) <= opts.MaxLines {
		_, err := io.WriteString(out, head+nl)
		return err
	}
	path, unsaved := "", "no overflow directory"
	trailer := "… [truncated]\n"
	if opts.Overflow != nil {
		var err error
		if path, err = opts.Overflow.SaveStream("result", ".txt", func(w io.Writer) error {
			if err := whole(w); err != nil {
				return err
			}
			_, err := io.WriteString(w, nl)
			return err
		}); err != nil {
			unsaved = opts.Overflow.unsavedBecause(err)
		} else {
			trailer = "… [truncated: full output in " + textsafe.StripControl(path) + "]\n"
		}
	}
	short := cutLines(head, opts.MaxBytes-len(trailer), opts.MaxLines-1) + trailer
	if _, err := io.WriteString(out, short); err != nil {
		return err
	}
	noteTruncated(notes, []byte(short), size, path, unsaved)
	return nil
}

// cutLines returns the longest prefix of text made of whole lines within
// maxBytes and maxLines. If not even the first line fits, it returns as much of
// it as fits, cut on a rune boundary, so that something is always shown.
func cutLines(text string, maxBytes, maxLines int) string {
	if maxBytes <= 0 || maxLines <= 0 {
		return ""
	}
	end, lines := 0, 0
	for lines < maxLines {
		nl := strings.IndexByte(text[end:], '\n')
		if nl < 0 || end+nl+1 > maxBytes {
			break
		}
		end += nl + 1
		lines++
	}
	if end > 0 {
		return text[:end]
	}
	cut := min(maxBytes-1, len(text)) // keep room for the newline
	for cut > 0 && cut < len(text) && !utf8.RuneStart(text[cut]) {
		cut--
	}
	if cut <= 0 {
		return ""
	}
	return text[:cut] + "\n"
}

func noteTruncated(notes io.Writer, short []byte, fullBytes int, path, unsaved string) {
	where := "not saved (" + unsaved + ")"
	if path != "" {
		where = "in " + path
	}
	textsafe.Note(notes, "output truncated to %d bytes / %d lines; full result (%d bytes) %s",
		len(short), bytes.Count(short, []byte{'\n'}), fullBytes, where)
}
