package textsafe

import "testing"

// A plain name is printed as it is; one with controls, bidirectional
// overrides, invisible characters, spaces or quotes is quoted, every such
// character escaped, so that what is printed survives StripControl and
// OneLine unchanged and reads as the name it is.
func TestName(t *testing.T) {
	for in, want := range map[string]string{
		"counter":            "counter",
		"db.lock":            "db.lock",
		"../x":               "../x",
		"café":               "café",
		"":                   `""`,
		"a\u009b31mb\u202ec": `"a\u009b31mb\u202ec"`,
		"a\u200db":           `"a\u200db"`,
		"a\x1b[2Jb":          `"a\x1b[2Jb"`,
		"my db":              `"my db"`,
		`say "hi"`:           `"say \"hi\""`,
		"a\tb":               `"a\tb"`,
		"a\x9b[31mb":         `"a\x9b[31mb"`, // invalid UTF-8: a raw C1 CSI byte
	} {
		got := Name(in)
		if got != want {
			t.Errorf("Name(%q) = %s, want %s", in, got, want)
		}
		if OneLine(got) != got {
			t.Errorf("Name(%q) = %q is changed by OneLine", in, got)
		}
	}
}
