package toolschema

import (
	"context"
	"strings"
	"testing"

	"github.com/mcpc-dev/mcpc/internal/fail"
)

// FuzzParsePairs: key=value and key:=json words either parse or give a
// usage error (exit 2); a parsed pair keeps its key.
func FuzzParsePairs(f *testing.F) {
	for _, seed := range []string{"q=bug", "n:=5", `tags:=["a","b"]`, "=x", ":=1", "s:=bug", "e:=", "k=v=w", "a.b=c"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, word string) {
		pairs, err := ParsePairs([]string{word})
		if err != nil {
			if fail.CodeOf(err) != fail.Usage {
				t.Fatalf("%q: %v is not a usage error", word, err)
			}
			return
		}
		if len(pairs) != 1 || pairs[0].Key == "" || !strings.HasPrefix(word, pairs[0].Key) {
			t.Fatalf("%q: pairs %+v", word, pairs)
		}
	})
}

// FuzzReadArgs: --args text is a JSON object or a usage error.
func FuzzReadArgs(f *testing.F) {
	for _, seed := range []string{`{"q":"bug"}`, `[]`, `null`, `{"a":`, `{"a":1} x`, `"s"`, ``} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, v string) {
		if v == "" || v == "-" || strings.HasPrefix(v, "@") {
			return // those name a source, not JSON
		}
		obj, err := ReadArgs(v, strings.NewReader(""), t.TempDir())
		if err != nil {
			if fail.CodeOf(err) != fail.Usage {
				t.Fatalf("%q: %v is not a usage error", v, err)
			}
			return
		}
		if obj == nil {
			t.Fatalf("%q: nil object without an error", v)
		}
	})
}

// FuzzReadCalls: a --batch file is its calls, each naming a tool, or a
// usage error (exit 2).
func FuzzReadCalls(f *testing.F) {
	for _, seed := range []string{`{"tool":"a"}`, "{\"tool\":\"a\",\"arguments\":{\"n\":1}}\n\n{\"tool\":\"b\"}", `{"x":1}`, `{"tool":"a"} 1`, `[`, ``} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in string) {
		calls, err := ReadCalls(context.Background(), "-", strings.NewReader(in), "")
		if err != nil {
			if fail.CodeOf(err) != fail.Usage {
				t.Fatalf("%q: %v is not a usage error", in, err)
			}
			return
		}
		for _, c := range calls {
			if c.Tool == "" {
				t.Fatalf("%q: a call without a tool", in)
			}
		}
	})
}
