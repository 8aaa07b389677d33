package format

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tidwall/gjson"
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

// checkQuery rejects paths with unbalanced brackets or quotes, a dangling
// escape, or an empty component ("a..b", "a.", "|a"). Inside brackets (queries
// such as #(name=="x") and multipaths) only balance and quoting are checked,
// since their contents follow gjson's own richer grammar.
func checkQuery(q string) error {
	fail := func(format string, args ...any) error {
		return &QueryError{Query: q, Reason: fmt.Sprintf(format, args...)}
	}
	closer := map[byte]byte{'(': ')', '[': ']', '{': '}'}
	var open []byte // stack of open brackets
	inString := false
	empty := true // the current top-level component has no characters yet
	i := 0
	if strings.HasPrefix(q, "..") {
		i = 2 // gjson's JSON Lines prefix
	}
	for ; i < len(q); i++ {
		c := q[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case '\\':
			if i+1 >= len(q) {
				return fail("ends with a lone escape character")
			}
			i++
		case '"':
			if len(open) > 0 {
				inString = true
			}
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
	case inString:
		return fail("unterminated string")
	case len(open) > 0:
		return fail("missing %q", closer[open[len(open)-1]])
	case empty:
		return fail("empty path component at the end")
	}
	return nil
}

// applyQuery selects q from the compact document src. Like jq, a path that
// matches nothing yields null rather than an error.
func applyQuery(src []byte, q string) (*node, error) {
	res := gjson.GetBytes(src, q)
	if !res.Exists() || res.Raw == "" {
		return literalNode("null"), nil
	}
	if !json.Valid([]byte(res.Raw)) {
		return nil, &QueryError{Query: q, Reason: "the selected value is not valid JSON"}
	}
	return parseJSON([]byte(res.Raw))
}
