package transport

import (
	"strings"
	"testing"
)

// tooDeep counts only the brackets outside strings: those inside one,
// after an escaped quote or an escaped backslash, are text.
func TestTooDeep(t *testing.T) {
	deep := func(open, close string) string {
		return strings.Repeat(open, MaxDepth+1) + strings.Repeat(close, MaxDepth+1)
	}
	for _, c := range []struct {
		text string
		want bool
	}{
		{strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth), false},
		{deep("[", "]"), true},
		{deep(`{"a":`, "}"), true},
		{`"` + deep("[", "]") + `"`, false},
		{`"\"` + deep("[", "]") + `"`, false},
		{`"\\"` + deep("[", "]"), true},
		{`["\\\"` + deep("{", "}") + `"]`, false},
		{`"` + strings.Repeat("[", MaxDepth+1), false}, // never closed: all text
	} {
		if got := tooDeep([]byte(c.text)); got != c.want {
			t.Errorf("tooDeep(%.40q…) = %v, want %v", c.text, got, c.want)
		}
	}
}
