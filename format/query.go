package format

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/mcpc-dev/mcpc/internal/rawmsg"
	"github.com/mcpc-dev/mcpc/internal/schemamsg"
)

// QueryError reports a --query path that is malformed. gjson itself never
// rejects a path (it just matches nothing), which would turn a typo into a
// silent null, so obviously broken paths are caught before use.
type QueryError struct {
	Query  string
	Reason string
}

func (e *QueryError) Error() string {
	return fmt.Sprintf("invalid query %q: %s", e.Query, e.Reason)
}

// CheckQuery reports, as a *QueryError, a path that is malformed whatever
// the result: unbalanced brackets or quotes, a dangling escape, an empty
// component ("a..b", "a.", "|a"), or a literal that is not JSON ("!1e",
// "[!1e]"). gjson v1 has no validity check of its own (a path it cannot
// read matches nothing), so this one is run before any server is started:
// a typo must not cost the user a tool call whose result is then thrown
// away. Inside brackets (queries such as #(name=="x") and multipaths) only
// balance and quoting are checked, since their contents follow gjson's own
// richer grammar.
func CheckQuery(q string) error {
	if err := checkSyntax(q); err != nil {
		return err
	}
	// What a path yields from nothing at all comes from the path alone (a
	// literal, a multipath of literals): when that is not JSON, no result
	// can make it so.
	if res := gjson.Get("null", q); res.Exists() && !json.Valid([]byte(res.Raw)) {
		// No longer than the path itself, which the message quotes too.
		return &QueryError{Query: q, Reason: fmt.Sprintf("it yields %q, which is not valid JSON", res.Raw)}
	}
	return nil
}

// checkSyntax is CheckQuery's look at the path's brackets, quotes, escapes
// and components.
func checkSyntax(q string) error {
	fail := func(format string, args ...any) error {
		return &QueryError{Query: q, Reason: fmt.Sprintf(format, args...)}
	}
	closer := map[byte]byte{'(': ')', '[': ']', '{': '}'}
	var open []byte            // stack of open brackets
	var text schemamsg.Strings // a string in a bracket: #(name=="x")
	empty := true              // the current top-level component has no characters yet
	i := 0
	if strings.HasPrefix(q, "..") {
		i = 2 // gjson's JSON Lines prefix
	}
	for ; i < len(q); i++ {
		c := q[i]
		if text.In() || c == '"' && len(open) > 0 {
			text.Outside(c)
			empty = false
			continue
		}
		switch c {
		case '\\':
			if i+1 >= len(q) {
				return fail("ends with a lone escape character")
			}
			i++
		case '(', '[', '{':
			open = append(open, c)
		case ')', ']', '}':
			if len(open) == 0 {
				return fail("unexpected %q at offset %d", c, i)
			}
			if want := closer[open[len(open)-1]]; c != want {
				return fail("unexpected %q at offset %d, expected %q", c, i, want)
			}
			open = open[:len(open)-1]
		case '.', '|':
			if len(open) == 0 {
				if empty {
					return fail("empty path component at offset %d", i)
				}
				empty = true
				continue
			}
		}
		empty = false
	}
	switch {
	case text.In():
		return fail("unterminated string")
	case len(open) > 0:
		return fail("missing %q", closer[open[len(open)-1]])
	case empty:
		return fail("empty path component at the end")
	}
	return nil
}

// applyQuery selects opts.Query from the compact document src, which is
// valid JSON. Like jq, a path that matches nothing yields null rather than
// an error. The value selected is parsed from src where it lies, without a
// copy, and capped as a large result is when it is printed bounded.
func applyQuery(src []byte, opts Options) (*node, error) {
	sel, err := selectRaw(src, opts.Query)
	if err != nil || sel == nil {
		return literalNode("null"), err
	}
	if capped(sel, opts) {
		return parseCapped(sel, opts.MaxLines+1)
	}
	return parseJSON(sel)
}

// selectRaw returns the JSON text q selects in src, nil for none.
func selectRaw(src []byte, q string) ([]byte, error) {
	// gjson decodes a selected string whole, twice: a path of plain keys
	// and indexes has its last step taken here instead, from the raw text.
	if parent, last, ok := simplePath(q); ok {
		raw := src
		if parent != "" {
			res := rawmsg.View(src).Get(parent)
			raw = rawmsg.Within(src, res)
			if res.Type != gjson.JSON {
				raw = nil
			}
		}
		if v, ok := member(raw, last); ok {
			return v, nil
		}
	}
	res := rawmsg.View(src).Get(q)
	if !res.Exists() || res.Raw == "" {
		return nil, nil
	}
	if v := rawmsg.Within(src, res); v != nil {
		return v, nil
	}
	// A value a modifier or a multipath made, not a part of src.
	if !json.Valid([]byte(res.Raw)) {
		return nil, &QueryError{Query: q, Reason: "the selected value is not valid JSON"}
	}
	return []byte(res.Raw), nil
}

// simplePath splits q, when it is keys and indexes only ("content.0.text"),
// into the path of the parent and the last component.
func simplePath(q string) (parent, last string, ok bool) {
	for i := 0; i < len(q); i++ {
		c := q[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return "", "", false
		}
		if c == '.' && (i == 0 || i == len(q)-1 || q[i-1] == '.') {
			return "", "", false
		}
	}
	if i := strings.LastIndexByte(q, '.'); i >= 0 {
		return q[:i], q[i+1:], q != ""
	}
	return "", q, q != ""
}

// member returns the raw value of key part of object raw, as gjson selects
// it (the first of that name), or of element part of array raw. It reports
// false when there is none or raw is neither.
func member(raw []byte, part string) ([]byte, bool) {
	// Capped at one element a container, a value is skipped without a
	// tree of it.
	p := parser{data: raw, max: 1}
	p.skipSpace()
	if p.pos >= len(raw) {
		return nil, false
	}
	index := -1
	switch raw[p.pos] {
	case '{':
	case '[':
		n, err := strconv.Atoi(part)
		if err != nil || n < 0 || part[0] == '-' {
			return nil, false
		}
		index = n
	default:
		return nil, false
	}
	p.pos++
	p.skipSpace()
	if raw[p.pos] == '}' || raw[p.pos] == ']' {
		return nil, false
	}
	for i := 0; ; i++ {
		var key []byte
		if index < 0 {
			p.skipSpace()
			key = p.stringText()
			p.skipSpace()
			p.pos++ // ':'
		}
		p.skipSpace()
		start := p.pos
		p.value()
		if (index < 0 && keyIs(key, part)) || i == index {
			return raw[start:p.pos:p.pos], true
		}
		p.skipSpace()
		if raw[p.pos] != ',' {
			return nil, false
		}
		p.pos++
	}
}

// Holds says whether q, a --query path (CheckQuery), selects from the
// JSON document src something other than null or false, as jq -e would
// exit 0: mcpc watch's --until.
func Holds(src []byte, q string) (bool, error) {
	sel, err := selectRaw(src, q)
	if err != nil || sel == nil {
		return false, err
	}
	s := string(sel)
	return s != "null" && s != "false", nil
}
