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
