package toolschema

import (
	"strings"
	"testing"
)

// A Source reads words and --args, stdin once: a word's @- is refused
// when a flag reads stdin, or --args - is, naming both.
func TestSourceStdinOnce(t *testing.T) {
	src := Source{Stdin: strings.NewReader(`{"a":"x"}`), StdinBy: ""}
	base, pairs, err := src.Read([]string{"k=v"}, "-")
	if err != nil || base["a"] != "x" || pairs[0].Raw != "v" {
		t.Fatalf("Read = %v, %+v, %v", base, pairs, err)
	}
	for _, c := range []struct {
		by, flag string
		words    []string
		want     string
	}{
		{"--args -", "-", []string{"k=@-"}, "k=@- and --args - cannot both read standard input"},
		{"x=@-", "", []string{"k:=@-"}, "k:=@- and x=@- cannot both read standard input"},
	} {
		_, _, err := Source{Stdin: strings.NewReader("1"), StdinBy: c.by}.Read(c.words, c.flag)
		if err == nil || err.Error() != c.want {
			t.Errorf("%v: %v, want %s", c.words, err, c.want)
		}
	}
	args, err := Source{Stdin: strings.NewReader("text")}.ReadPrompt([]string{"city=@-", "n:=5"}, "")
	if err != nil || args["city"] != "text" || args["n"] != "5" {
		t.Errorf("ReadPrompt = %v, %v", args, err)
	}
}
