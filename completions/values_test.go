package completions

import (
	"reflect"
	"testing"

	redaction "github.com/mcpc-dev/mcpc/internal/redact"
)

func TestArgBeingValued(t *testing.T) {
	for _, c := range []struct {
		word, key, sep, partial string
		ok                      bool
	}{
		{"name=A", "name", "=", "A", true},
		{"n:=tr", "n", ":=", "tr", true},
		{"name=", "name", "=", "", true},
		{"name", "", "", "", false},
		{"=x", "", "", "", false},
		{":=x", "", ":=", "x", false},
		{"q=a=b", "q", "=", "a=b", true},
	} {
		key, sep, partial, ok := argBeingValued(c.word)
		if key != c.key || sep != c.sep || partial != c.partial || ok != c.ok {
			t.Errorf("argBeingValued(%q) = %q %q %q %v; want %q %q %q %v", c.word, key, sep, partial, ok, c.key, c.sep, c.partial, c.ok)
		}
	}
}

func TestGivenArgs(t *testing.T) {
	got := givenArgs([]string{"department=Sales", "n:=3", "bare", "name=Eve=x"})
	want := map[string]string{"department": "Sales", "name": "Eve=x"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("givenArgs = %v; want %v", got, want)
	}
}

// A server's word that would start with "-" is not offered (mcpc would
// read it as a flag), nor a value that cannot be one printable line.
func TestServerWordsAndPrintable(t *testing.T) {
	got := ServerWords([]Candidate{{Value: "--stdio=touch x"}, {Value: "echo"}, {Value: "-x"}, {Value: "name=-x"}})
	if want := []Candidate{{Value: "echo"}, {Value: "name=-x"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("ServerWords = %v; want %v", got, want)
	}
	for v, want := range map[string]bool{
		"name=Dr. Ada": true, "name=$(x)": true, "é": true,
		"a\nb": false, "a\tb": false, "\x1b[31mred": false, "a\rb": false, "\u202eevil": false, "\xff": false,
	} {
		if printable(v) != want {
			t.Errorf("printable(%q) = %v; want %v", v, !want, want)
		}
	}
}

// A candidate holding a secret the lookup sent (an access token a server
// echoes) is not offered, whole or inside a value; nor is one that is not
// printable. Without secrets only printability counts.
func TestOfferable(t *testing.T) {
	secrets := redaction.NewSet()
	secrets.Add("tok-3f9a2c71e5")
	for _, c := range []struct {
		set  *redaction.Set
		v    string
		want bool
	}{
		{secrets, "Ada", true},
		{secrets, "tok-3f9a2c71e5", false},
		{secrets, "name=Bearer tok-3f9a2c71e5 x", false},
		{secrets, "a\x1b[2Jb", false},
		{nil, "tok-3f9a2c71e5", true},
		{nil, "a\nb", false},
	} {
		if got := offerable(c.set, c.v); got != c.want {
			t.Errorf("offerable(%q) = %v, want %v", c.v, got, c.want)
		}
	}
}
