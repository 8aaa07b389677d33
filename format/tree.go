package format

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/mcpc-dev/mcpc/internal/schemamsg"
)

// ErrInvalidJSON is returned by Write when the result is not one valid JSON value.
var ErrInvalidJSON = errors.New("result is not valid JSON")

type nodeKind uint8

const (
	nodeLiteral nodeKind = iota // number, true, false, null
	nodeString
	nodeArray
	nodeObject
)

// node is one JSON value. Scalars and keys keep their text as sent (escapes,
// number spelling) so that rendering a whole document reproduces what
// json.Indent would print, and objects keep their key order, which a
// map[string]any would lose.
type node struct {
	kind nodeKind
	raw  []byte   // literal or string text; strings include their quotes
	keys [][]byte // object keys as quoted JSON text, parallel to kids
	kids []*node  // array elements or object values
	// rest holds, unparsed, the elements after the first few of a long
	// container (parseCapped). Only a rendering without a budget shows them.
	rest *rest

	decoded *string // cache of the decoded string, filled on demand
}

var replacementChar = []byte("\uFFFD")

// parseJSON builds the tree for data, which must hold exactly one JSON value.
func parseJSON(data []byte) (*node, error) {
	if !json.Valid(data) {
		return nil, ErrInvalidJSON
	}
	p := parser{data: data}
	return p.value(), nil
}

// parseCapped is parseJSON keeping at most max elements of each container
// as nodes, and the others as raw text (node.rest): a result of a million
// small items would otherwise cost a tree ten times its size, when a
// bounded rendering shows at most a few thousand of them and a full one
// can parse them one at a time.
func parseCapped(data []byte, max int) (*node, error) {
	if !json.Valid(data) {
		return nil, ErrInvalidJSON
	}
	p := parser{data: data, max: max}
	return p.value(), nil
}

// parseShallow is parseJSON keeping the elements of the top level's
// containers after the first as raw text: a list of many items is then read
// one item at a time (node.eachRest), each item whole.
func parseShallow(data []byte) (*node, error) {
	if !json.Valid(data) {
		return nil, ErrInvalidJSON
	}
	p := parser{data: data, max: 1, capAt: 2}
	return p.value(), nil
}

// parser reads input that json.Valid has accepted, so it does no error checks.
// The tree's byte slices point into the input unless they had to be repaired.
type parser struct {
	data   []byte
	pos    int
	slab   []node // nodes are carved from chunks: one allocation per value is most of a parse's cost
	carved bool   // a first chunk was made, sized by the data
	max    int    // > 0: elements kept per container, the rest left raw
	// capAt > 0 caps only the containers at that depth (1 the top
	// level); depth is the current one.
	capAt, depth int
}

// rest is what a capped container keeps of the elements it did not parse:
// their text, from the comma after the last kid to the closing bracket,
// and what budgetSpan would have found in them.
type rest struct {
	raw      []byte
	count    int // elements
	maxLen   int // the most elements of a container among them
	maxDepth int // the deepest container among them, 1 for an element itself
	maxStr   int // the largest string span (len/stringRunesPerBudget+1) of a value among them
}

// capped reports whether container n, with the parser after one of its
// elements, keeps the rest raw; if so it has skipped them.
func (p *parser) capped(n *node) bool {
	if p.max <= 0 || len(n.kids) < p.max || (p.capAt > 0 && p.depth != p.capAt) {
		return false
	}
	p.skipSpace()
	if p.data[p.pos] != ',' {
		return false
	}
	r := &rest{}
	type open struct{ commas, nonEmpty int }
	var stack []open
	start, pendingStr := p.pos, 0
	for ; ; p.pos++ {
		c := p.data[p.pos]
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		case ':':
			pendingStr = 0 // it was a key
			continue
		}
		r.maxStr, pendingStr = max(r.maxStr, pendingStr), 0
		if len(stack) > 0 && c != ']' && c != '}' {
			stack[len(stack)-1].nonEmpty = 1
		}
		switch c {
		case '"':
			end := schemamsg.StringEnd(p.data, p.pos)
			pendingStr = (end-p.pos)/stringRunesPerBudget + 1
			p.pos = end - 1 // its closing quote
		case '[', '{':
			stack = append(stack, open{})
			r.maxDepth = max(r.maxDepth, len(stack))
		case ',':
			if len(stack) == 0 {
				r.count++
			} else {
				stack[len(stack)-1].commas++
			}
		case ']', '}':
			if len(stack) == 0 {
				r.raw = p.data[start:p.pos:p.pos]
				n.rest = r
				p.pos++
				return true
			}
			top := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if top.nonEmpty > 0 {
				r.maxLen = max(r.maxLen, top.commas+1)
			}
		}
	}
}

// eachRest parses the elements of n.rest one at a time, as a rendering
// needs them: key is nil for an array's.
func (n *node) eachRest(f func(key []byte, v *node) bool) {
	p := parser{data: n.rest.raw}
	// Each element's nodes are done with once f returns: the next one
	// reuses them.
	reuse := make([]node, 64)
	for {
		p.slab = reuse
		p.skipSpace()
		if p.pos >= len(p.data) {
			return
		}
		p.pos++ // ','
		var key []byte
		if n.kind == nodeObject {
			p.skipSpace()
			key = p.stringText()
			p.skipSpace()
			p.pos++ // ':'
		}
		if !f(key, p.value()) {
			return
		}
	}
}

func (p *parser) newNode(kind nodeKind) *node {
	if len(p.slab) == 0 {
		// The first chunk is sized by the data (a value and its key take
		// some bytes): a small document, a watch's line, one of millions,
		// would otherwise pay for 1024 nodes (96 KiB) it never uses.
		size := 1024
		if !p.carved {
			size, p.carved = min(size, 8+len(p.data)/8), true
		}
		p.slab = make([]node, size)
	}
	n := &p.slab[0]
	p.slab = p.slab[1:]
	// A node reused by eachRest keeps the room of its slices.
	*n = node{kind: kind, keys: n.keys[:0], kids: n.kids[:0]}
	return n
}

func (p *parser) skipSpace() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *parser) value() *node {
	p.skipSpace()
	switch p.data[p.pos] {
	case '{', '[':
		p.depth++
		n := p.container()
		p.depth--
		return n
	case '"':
		n := p.newNode(nodeString)
		n.raw = p.stringText()
		return n
	default:
		start := p.pos
		for p.pos < len(p.data) {
			c := p.data[p.pos]
			if c == ',' || c == '}' || c == ']' || c == ' ' || c == '\t' || c == '\n' || c == '\r' {
				break
			}
			p.pos++
		}
		n := p.newNode(nodeLiteral)
		n.raw = p.data[start:p.pos:p.pos]
		return n
	}
}

// open starts the container whose first byte is at p.pos; empty when
// its closing byte follows at once (read too).
func (p *parser) open(kind nodeKind, closing byte) (n *node, empty bool) {
	p.pos++
	n = p.newNode(kind)
	p.skipSpace()
	if p.data[p.pos] == closing {
		p.pos++
		return n, true
	}
	return n, false
}

// more reads what follows an item of the container n: false when n
// ends there (its closing byte, or the cap on what is kept).
func (p *parser) more(n *node, closing byte) bool {
	if p.capped(n) {
		return false
	}
	p.skipSpace()
	c := p.data[p.pos]
	p.pos++
	return c != closing
}

// container parses the object or array at p.pos.
func (p *parser) container() *node {
	switch p.data[p.pos] {
	case '{':
		n, empty := p.open(nodeObject, '}')
		if empty {
			return n
		}
		for {
			p.skipSpace()
			n.keys = append(n.keys, p.stringText())
			p.skipSpace()
			p.pos++ // ':'
			n.kids = append(n.kids, p.value())
			if !p.more(n, '}') {
				return n
			}
		}
	case '[':
		n, empty := p.open(nodeArray, ']')
		if empty {
			return n
		}
		for {
			n.kids = append(n.kids, p.value())
			if !p.more(n, ']') {
				return n
			}
		}
	}
	panic("unreachable: not a container")
}

// stringText returns the quoted string at p.pos. encoding/json accepts invalid
// UTF-8 inside strings, but it would make the output invalid JSON for strict
// readers, so such bytes become U+FFFD here, once.
func (p *parser) stringText() []byte {
	start, i := p.pos, schemamsg.StringEnd(p.data, p.pos)
	p.pos = i
	s := p.data[start:i:i]
	if !utf8.Valid(s) {
		s = bytes.ToValidUTF8(s, replacementChar)
	}
	return s
}

// escapeHostile rewrites, inside JSON text, the characters a
// terminal would obey if it printed the text raw (DEL, C1 controls, bidi
// overrides and marks) as \uXXXX escapes: the value is the same JSON, but
// `mcpc … | cat` cannot reorder or recolour the screen. In valid JSON such
// characters can only be inside strings, where an escape means the same; C0
// controls are escaped there already.
func escapeHostile(s []byte) []byte {
	if !hasHostile(s) {
		return s
	}
	const hex = "0123456789abcdef"
	out := make([]byte, 0, len(s)+16)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRune(s[i:])
		if hostileRune(r) {
			out = append(out, '\\', 'u', hex[r>>12&0xf], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf])
		} else {
			out = append(out, s[i:i+size]...)
		}
		i += size
	}
	return out
}

func hasHostile(s []byte) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == 0x7f:
			return true
		case c == 0xc2 && i+1 < len(s) && s[i+1] >= 0x80 && s[i+1] <= 0x9f: // C1
			return true
		case c == 0xd8 && i+1 < len(s) && s[i+1] == 0x9c: // U+061C
			return true
		case c == 0xe2 && i+2 < len(s): // U+200E-F, U+202A-E, U+2066-9
			r, _ := utf8.DecodeRune(s[i:])
			if hostileRune(r) {
				return true
			}
		}
	}
	return false
}

func hostileRune(r rune) bool {
	switch {
	case r == 0x7f, r >= 0x80 && r <= 0x9f:
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// str returns the decoded value of a string node.
func (n *node) str() string {
	if n.decoded == nil {
		var s string
		if bytes.IndexByte(n.raw, '\\') < 0 {
			s = string(n.raw[1 : len(n.raw)-1])
		} else {
			s = decodeRaw(n.raw[1 : len(n.raw)-1])
		}
		n.decoded = &s
	}
	return *n.decoded
}

// keyIs reports whether the quoted key text spells name.
func keyIs(raw []byte, name string) bool {
	if bytes.IndexByte(raw, '\\') < 0 {
		return len(raw) == len(name)+2 && string(raw[1:len(raw)-1]) == name
	}
	var s string
	return json.Unmarshal(raw, &s) == nil && s == name
}

// get returns the value of the first key named name, or nil.
func (n *node) get(name string) *node {
	if n == nil || n.kind != nodeObject {
		return nil
	}
	for i, k := range n.keys {
		if keyIs(k, name) {
			return n.kids[i]
		}
	}
	// An object parsed capped has the keys after the first few raw.
	var found *node
	if n.rest != nil {
		n.eachRest(func(key []byte, v *node) bool {
			if keyIs(key, name) {
				found = v
			}
			return found == nil
		})
	}
	return found
}

// getString returns the decoded string under name, and whether it is a string.
func (n *node) getString(name string) (string, bool) {
	v := n.get(name)
	if v == nil || v.kind != nodeString {
		return "", false
	}
	return v.str(), true
}

// getArray returns the elements of the array under name. A null counts as an
// empty array: Go encodes a nil slice that way, and servers written in Go
// send it for "no items".
func (n *node) getArray(name string) ([]*node, bool) {
	v := n.get(name)
	switch {
	case v == nil:
		return nil, false
	case v.kind == nodeArray:
		return v.kids, true
	case v.kind == nodeLiteral && string(v.raw) == "null":
		return nil, true
	}
	return nil, false
}

func (n *node) isTrue(name string) bool {
	v := n.get(name)
	return v != nil && v.kind == nodeLiteral && string(v.raw) == "true"
}

func stringNode(s string) *node {
	return &node{kind: nodeString, raw: appendQuoted(nil, s), decoded: &s}
}

func literalNode(s string) *node {
	return &node{kind: nodeLiteral, raw: []byte(s)}
}

func intNode(v int) *node {
	return literalNode(strconv.Itoa(v))
}

// appendQuoted appends s as a JSON string. s must be valid UTF-8. Only what JSON
// requires is escaped, matching how the rest of a document is passed through.
func appendQuoted(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
		start = i + 1
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// appendCompact appends n without insignificant whitespace (but for the
// elements a capped container keeps raw, as sent); gjson reads this after
// the media pass has changed the tree.
func appendCompact(dst []byte, n *node) []byte {
	switch n.kind {
	case nodeObject:
		dst = append(dst, '{')
		for i, k := range n.keys {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, k...)
			dst = append(dst, ':')
			dst = appendCompact(dst, n.kids[i])
		}
		if n.rest != nil {
			dst = append(dst, n.rest.raw...)
		}
		return append(dst, '}')
	case nodeArray:
		dst = append(dst, '[')
		for i, k := range n.kids {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendCompact(dst, k)
		}
		if n.rest != nil {
			dst = append(dst, n.rest.raw...)
		}
		return append(dst, ']')
	default:
		return append(dst, n.raw...)
	}
}

// renderer prints a tree indented by two spaces, exactly as json.Indent would,
// optionally shortened by a budget and stopped as soon as it exceeds a limit,
// so that trying one budget costs no more than the output it may produce.
type renderer struct {
	buf      []byte
	newlines int

	// out, when set, receives the rendering as it grows (escapeHostile
	// applied), so buf stays small; write errors end up in err.
	out io.Writer
	err error
	// asIs hands out the rendering without escapeHostile, for text that is
	// stripped instead.
	asIs bool

	limitBytes int // stop once len(buf) would exceed this; < 0 = no limit
	limitLines int // stop once newlines would exceed this; < 0 = no limit
	over       bool

	// budget bounds the runes kept of each string (stringRunesPerBudget per
	// unit), the elements kept of each container and the nesting depth shown;
	// < 0 renders everything.
	budget int

	marker      []byte // rendered "_mcpc" value for a top-level object, or nil
	markerLines int
}

const truncatedSuffix = "…[truncated]"

// renderAll renders the whole tree followed by a newline. sizeHint, when
// known, presizes the buffer so a large document is not copied as it grows.
func renderAll(n *node, sizeHint int) []byte {
	r := renderer{limitBytes: -1, limitLines: -1, budget: -1, buf: make([]byte, 0, sizeHint)}
	r.value(n, 0)
	return append(r.buf, '\n')
}

func (r *renderer) grow(extra int) bool {
	if r.limitBytes >= 0 && len(r.buf)+extra > r.limitBytes {
		r.over = true
	}
	return !r.over
}

func (r *renderer) newline(depth int) {
	r.newlines++
	if r.limitLines >= 0 && r.newlines > r.limitLines {
		r.over = true
		return
	}
	if !r.grow(1 + 2*depth) {
		return
	}
	r.buf = append(r.buf, '\n')
	for i := 0; i < depth; i++ {
		r.buf = append(r.buf, ' ', ' ')
	}
}

// The renderer's punctuation, allocated once: a literal passed to write
// would escape (to out) and be allocated at every use.
var (
	tokEmptyArray  = []byte("[]")
	tokOpenArray   = []byte("[")
	tokCloseArray  = []byte("]")
	tokEmptyObject = []byte("{}")
	tokOpenObject  = []byte("{")
	tokCloseObject = []byte("}")
	tokComma       = []byte(",")
	tokColon       = []byte(": ")
)

// flushAt is how much a streaming renderer buffers.
const flushAt = 64 << 10

func (r *renderer) write(b []byte) {
	if !r.grow(len(b)) {
		return
	}
	if r.out != nil && len(r.buf)+len(b) > flushAt {
		r.flush()
		if len(b) > flushAt {
			r.emit(b)
			return
		}
	}
	r.buf = append(r.buf, b...)
}

// flush hands what buf holds to out. buf holds whole tokens, so no rune is
// split between two calls.
func (r *renderer) flush() {
	if len(r.buf) > 0 {
		r.emit(r.buf)
		r.buf = r.buf[:0]
	}
}

func (r *renderer) emit(b []byte) {
	if r.err == nil {
		if !r.asIs {
			b = escapeHostile(b)
		}
		_, r.err = r.out.Write(b)
	}
}

// keep returns how many of count children a container at depth shows.
func (r *renderer) keep(count, depth int) int {
	if r.budget < 0 {
		return count
	}
	if depth >= r.budget {
		return 0
	}
	return min(count, r.budget)
}

func (r *renderer) value(n *node, depth int) {
	switch n.kind {
	case nodeLiteral:
		r.write(n.raw)
	case nodeString:
		r.string(n)
	case nodeArray:
		keep := r.keep(len(n.kids), depth)
		if keep == 0 {
			r.write(tokEmptyArray)
			return
		}
		r.write(tokOpenArray)
		for i := 0; i < keep && !r.over; i++ {
			if i > 0 {
				r.write(tokComma)
			}
			r.newline(depth + 1)
			r.value(n.kids[i], depth+1)
		}
		r.rest(n, depth)
		r.newline(depth)
		r.write(tokCloseArray)
	case nodeObject:
		keep := r.keep(len(n.kids), depth)
		withMarker := depth == 0 && r.marker != nil
		if keep == 0 && !withMarker {
			r.write(tokEmptyObject)
			return
		}
		r.write(tokOpenObject)
		for i := 0; i < keep && !r.over; i++ {
			if i > 0 {
				r.write(tokComma)
			}
			r.newline(depth + 1)
			r.write(n.keys[i])
			r.write(tokColon)
			r.value(n.kids[i], depth+1)
		}
		r.rest(n, depth)
		if withMarker && !r.over {
			if keep > 0 {
				r.write(tokComma)
			}
			r.newline(depth + 1)
			r.write([]byte(`"_mcpc": `))
			r.write(r.marker)
			r.newlines += r.markerLines
			if r.limitLines >= 0 && r.newlines > r.limitLines {
				r.over = true
			}
		}
		r.newline(depth)
		r.write(tokCloseObject)
	}
}

// rest renders the elements a capped container keeps raw, when the
// rendering shows every element. (A budget shows fewer than the kept ones:
// more would not fit, as each element takes a line.)
func (r *renderer) rest(n *node, depth int) {
	if n.rest == nil || r.budget >= 0 {
		return
	}
	n.eachRest(func(key []byte, v *node) bool {
		r.write(tokComma)
		r.newline(depth + 1)
		if key != nil {
			r.write(key)
			r.write(tokColon)
		}
		r.value(v, depth+1)
		return !r.over
	})
}

// Strings are allowed stringRunesPerBudget runes per unit of budget: short
// strings are usually names, types and enum values whose cut form would be
// useless, while the few long ones are where the bytes are. A string is only
// cut if that makes it shorter: within suffixRunes of the limit it stays whole.
const (
	stringRunesPerBudget = 4
	suffixRunes          = 12 // runes in truncatedSuffix
)

func (r *renderer) string(n *node) {
	if r.budget < 0 {
		r.write(n.raw)
		return
	}
	keep := stringRunesPerBudget * r.budget
	whole := keep + suffixRunes
	// Each rune takes at least one byte of JSON text, so a short enough raw
	// string is known to stay whole without decoding it.
	if len(n.raw)-2 <= whole {
		r.write(n.raw)
		return
	}
	// Walk the raw text rune by rune: decoding a long string whole to keep a
	// few runes of it would copy all of it.
	raw := n.raw[1 : len(n.raw)-1]
	i, j, runes, cut := 0, 0, 0, 0
	for j < len(raw) && runes <= whole {
		if runes == keep {
			cut = j
		}
		c, size := rawRune(raw[j:])
		j += size
		i += utf8.RuneLen(c)
		runes++
		if r.limitBytes >= 0 && runes <= keep && i > r.limitBytes {
			r.over = true
			return
		}
	}
	if runes <= whole {
		r.write(n.raw)
		return
	}
	var s string
	if err := json.Unmarshal(append(n.raw[:cut+1:cut+1], '"'), &s); err != nil {
		s = "" // cannot happen: the cut is between two runes of a valid string
	}
	r.write(appendQuoted(nil, s+truncatedSuffix))
}

// rawRune decodes the first rune of b, the text of a valid JSON string
// without its quotes, as encoding/json would (a lone surrogate is U+FFFD),
// and returns it and how many bytes of b it takes.
func rawRune(b []byte) (rune, int) {
	if b[0] != '\\' {
		return utf8.DecodeRune(b)
	}
	switch b[1] {
	case 'u':
		r := hex4(b[2:6])
		if !utf16.IsSurrogate(r) {
			return r, 6
		}
		if len(b) >= 12 && b[6] == '\\' && b[7] == 'u' {
			if d := utf16.DecodeRune(r, hex4(b[8:12])); d != utf8.RuneError {
				return d, 12
			}
		}
		return utf8.RuneError, 6
	case 'b':
		return '\b', 2
	case 'f':
		return '\f', 2
	case 'n':
		return '\n', 2
	case 'r':
		return '\r', 2
	case 't':
		return '\t', 2
	}
	return rune(b[1]), 2 // '"', '\\', '/'
}

// decodeRaw decodes the text of a valid JSON string without its quotes in
// one copy (encoding/json makes two).
func decodeRaw(b []byte) string {
	var s strings.Builder
	s.Grow(len(b))
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\\')
		if i != 0 {
			if i < 0 {
				i = len(b)
			}
			s.Write(b[:i])
			b = b[i:]
			continue
		}
		r, size := rawRune(b)
		s.WriteRune(r)
		b = b[size:]
	}
	return s.String()
}

func hex4(b []byte) rune {
	var r rune
	for _, c := range b {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		}
		r = r<<4 | rune(c)
	}
	return r
}
