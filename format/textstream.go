package format

import (
	"bytes"
	"io"
	"unicode/utf8"
)

// textChunk is the most of a long string a text rendering decodes at once.
const textChunk = 64 << 10

// pieces receives a text rendering in order, a piece at a time: long strings
// are decoded from their raw JSON text a chunk at a time and never held whole.
// Each piece is valid UTF-8 and ends on a rune boundary.
type pieces struct {
	emit func([]byte)
	buf  []byte
	// endsLine is whether the last non-empty piece of the current block
	// ended a line.
	endsLine bool
}

func (p *pieces) put(b []byte) {
	if len(b) > 0 {
		p.endsLine = b[len(b)-1] == '\n'
		p.emit(b)
	}
}

func (p *pieces) str(s string) {
	p.buf = append(p.buf[:0], s...)
	p.put(p.buf)
}

// node writes the decoded value of string node n, as n.str() would return it.
func (p *pieces) node(n *node) {
	raw := n.raw[1 : len(n.raw)-1]
	buf := p.buf[:0]
	for len(raw) > 0 {
		if len(buf) > textChunk-utf8.UTFMax {
			p.put(buf)
			buf = buf[:0]
		}
		if raw[0] == '\\' {
			r, size := rawRune(raw)
			buf = utf8.AppendRune(buf, r)
			raw = raw[size:]
			continue
		}
		i := bytes.IndexByte(raw, '\\')
		if i < 0 {
			i = len(raw)
		}
		if room := textChunk - len(buf); i > room {
			i = room
			for !utf8.RuneStart(raw[i]) {
				i--
			}
		}
		buf = append(buf, raw[:i]...)
		raw = raw[i:]
	}
	p.put(buf)
	p.buf = buf
}

// line writes a block of text and ends its line, as writeLine does: v is
// a string node to stream, or nil for s.
func (p *pieces) line(v *node, s string) {
	p.endsLine = false
	if v != nil {
		p.node(v)
	} else {
		p.str(s)
	}
	if !p.endsLine {
		p.str("\n")
	}
}

// callToolPieces renders a CallToolResult as text into p: each content
// block on its own lines, then structuredContent pretty-printed. It
// reports false, having written nothing, when root is not one.
func callToolPieces(root *node, p *pieces) bool {
	if !isCallTool(root) {
		return false
	}
	content, _ := root.getArray("content")
	structured := root.get("structuredContent")
	block := func(_ []byte, item *node) bool {
		// A text block that only repeats structuredContent as JSON is
		// shown once, below, pretty-printed.
		switch v := blockString(item); {
		case structured != nil && repeats(item, structured):
		case v != nil:
			p.line(v, "")
		default:
			p.line(nil, blockText(item))
		}
		return true
	}
	for _, item := range content {
		block(nil, item)
	}
	// The items a capped parse left raw, one at a time.
	if c := root.get("content"); c != nil && c.rest != nil {
		c.eachRest(block)
	}
	if structured != nil {
		p.put(renderAll(structured, 0))
	}
	return true
}

// isCallTool reports whether root has the shape of a CallToolResult.
func isCallTool(root *node) bool {
	_, ok := root.getArray("content")
	return root.kind == nodeObject && (ok || (root.get("content") == nil && root.get("structuredContent") != nil))
}

// blockString returns the string node whose value is blockText(item), so
// that it can be streamed, or nil when the block is a summary.
func blockString(item *node) *node {
	// The type is compared undecoded: decoding it would allocate for
	// each of many small items.
	var v *node
	switch typ := item.get("type"); {
	case typ == nil || typ.kind != nodeString:
	case keyIs(typ.raw, "text"):
		v = item.get("text")
	case keyIs(typ.raw, "resource"):
		v = item.get("resource").get("text")
	}
	if v != nil && v.kind == nodeString {
		return v
	}
	return nil
}

// writeCallTool is writeText for a CallToolResult: the rendering is
// streamed from the tree, stripped on the way, so that a large text is never
// held rendered; a sequence split between blocks is stripped as it would be
// in the whole text. It reports false, having written nothing, when root is
// not a CallToolResult.
func writeCallTool(out, notes io.Writer, root *node, opts Options) (bool, error) {
	if !isCallTool(root) {
		return false, nil
	}
	return true, writeStripped(out, notes, func(w io.Writer) error {
		var err error
		callToolPieces(root, &pieces{emit: func(b []byte) {
			if err == nil {
				_, err = w.Write(b)
			}
		}})
		return err
	}, opts)
}
