package shellwords

import (
	"errors"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

func TestQuote(t *testing.T) {
	for in, want := range map[string]string{
		"echo":           "echo",
		"text=TEXT":      "text=TEXT",
		"-y":             "-y",
		"@scope/pkg@1.2": "@scope/pkg@1.2",
		"":               "''",
		"a b":            "'a b'",
		"it's":           `'it'\''s'`,
		"$HOME":          "'$HOME'",
		"*":              "'*'",
		"=ls":            "'=ls'", // zsh runs =ls as /usr/bin/ls
		"~":              "'~'",
		"#x":             "'#x'",
		"x=~/y":          "'x=~/y'",
		"!x":             "'!x'",
		"^x":             "'^x'",
		"é":              "'é'",
		"a\nb":           "'a\nb'",
	} {
		if got := Quote(in); got != want {
			t.Errorf("Quote(%q) = %s, want %s", in, got, want)
		}
	}
}

// QuotePwsh leaves plain words alone and puts anything PowerShell could
// read as code, a quote or a separator in single quotes, every kind of
// single quote doubled. (PowerShell is not on the test machines: this is
// its only test.)
func TestQuotePwsh(t *testing.T) {
	for in, want := range map[string]string{
		"echo":                    "echo",
		"name=Ada":                "name=Ada",
		"test://items/1":          "test://items/1",
		"":                        "''",
		"-x":                      "'-x'",
		"--%":                     "'--%'",
		"a b":                     "'a b'",
		"it's":                    "'it''s'",
		"it\u2019s \u2018x\u201b": "'it\u2019\u2019s \u2018\u2018x\u201b\u201b'",
		"$(touch x)":              "'$(touch x)'",
		"`whoami`":                "'`whoami`'",
		"a;b":                     "'a;b'",
		"a,b":                     "'a,b'",
		"@x":                      "'@x'",
		"say \"hi\"":              "'say \"hi\"'",
		"C:\\x":                   "'C:\\x'",
		"~":                       "'~'",
		"*":                       "'*'",
		"a\nb":                    "'a\nb'",
		"name=$env:HOME":          "'name=$env:HOME'",
	} {
		if got := QuotePwsh(in); got != want {
			t.Errorf("QuotePwsh(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestJoin(t *testing.T) {
	for _, tc := range []struct {
		words []string
		want  string
	}{
		{nil, ""},
		{[]string{"npx", "-y", "my server", "a=b"}, "npx -y 'my server' a=b"},
		{[]string{"a=b", "c=d"}, "'a=b' c=d"},
		{[]string{"if", "then"}, "'if' then"},
		{[]string{"", ""}, "'' ''"},
	} {
		if got := Join(tc.words); got != tc.want {
			t.Errorf("Join(%q) = %s, want %s", tc.words, got, tc.want)
		}
	}
}

func TestSplit(t *testing.T) {
	for in, want := range map[string][]string{
		`npx -y server`:                    {"npx", "-y", "server"},
		`node 'my server.js' --name "a b"`: {"node", "my server.js", "--name", "a b"},
		`echo a\ b "q\"uote" '$HOME'`:      {"echo", "a b", `q"uote`, "$HOME"},
		`"a\b\$c"`:                         {`a\b$c`},
		`  spaced   out  `:                 {"spaced", "out"},
		`''`:                               {""},
		``:                                 nil,
	} {
		got, err := Split(in)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("Split(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	// The words scripts pin (invalid --stdio command: …).
	for in, want := range map[string]string{`"open`: "unterminated double quote", `'open`: "unterminated single quote"} {
		if _, err := Split(in); err == nil || err.Error() != want {
			t.Errorf("Split(%q): error %v, want %q", in, err, want)
		}
	}
}

// Words every shell reads back unchanged once quoted, and the first words
// a shell would not run as a command unless quoted.
var shellWords = []string{
	"", "plain", "a b", "it's", `"`, `'`, "''", "a'b'c", "$HOME", "${HOME}", "`id`", "$(id)",
	"*", "?", "[a]", "{a,b}", "~", "~root", "=ls", "a=b", "x=~/y", "#x", "x#y", "!x", "^x",
	"a\nb", "\t", "%1", "-n", "--", ";", "&", "|", "<", ">", "(", ")", `\`, `a\nb`, "é", "a  b",
}

// The quoting holds in the shells users paste into: each run prints the
// words it was given, and a quoted first word runs as a command (127: no
// such command) rather than an assignment or a reserved word.
func TestQuoteInShells(t *testing.T) {
	var want strings.Builder
	for _, w := range shellWords {
		want.WriteString("<" + w + ">")
	}
	ran := 0
	for _, sh := range []string{"sh", "dash", "bash", "zsh"} {
		path, err := exec.LookPath(sh)
		if err != nil {
			continue
		}
		ran++
		out, err := exec.Command(path, "-c", "printf '<%s>' "+Join(shellWords)).Output()
		if err != nil || string(out) != want.String() {
			t.Errorf("%s: %q, %v\nwant %q", sh, out, err, want.String())
		}
		for _, first := range []string{"x=1", "if", "then", "done"} {
			err := exec.Command(path, "-c", Join([]string{first})).Run()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 127 {
				t.Errorf("%s -c %s: %v, want exit 127", sh, Join([]string{first}), err)
			}
		}
	}
	if ran == 0 {
		t.Skip("no POSIX shell on PATH")
	}
}

// FuzzQuoteSplit: splitting never panics; and any list of words, joined,
// splits back into the same words.
func FuzzQuoteSplit(f *testing.F) {
	for _, seed := range []string{`npx -y server`, `a 'b c' "d \"e\"" f\ g`, `'unterminated`, `"a\`, ``, "a\tb\nc", "it's\x00\x00=x\x00~"} {
		f.Add(seed)
	}
	f.Add(strings.Join(shellWords, "\x00"))
	f.Fuzz(func(t *testing.T, s string) {
		if words, err := Split(s); err == nil {
			if again, err := Split(Join(words)); err != nil || !slices.Equal(again, words) {
				t.Fatalf("%q: split %q, joined and split %q (%v)", s, words, again, err)
			}
		}
		words := strings.Split(s, "\x00")
		if again, err := Split(Join(words)); err != nil || !slices.Equal(again, words) {
			t.Fatalf("words %q: joined %s, split %q (%v)", words, Join(words), again, err)
		}
	})
}

// FuzzQuotePwsh reads QuotePwsh's word back as PowerShell reads an
// argument: a bare word is only safe characters; a quoted one is one
// single-quoted string, no single quote of any kind alone inside it, and
// it spells s.
func FuzzQuotePwsh(f *testing.F) {
	for _, seed := range []string{"", "a", "-x", "it's", "a\u2019b", "$(x)", "'", "''"} {
		f.Add(seed)
	}
	isQuote := func(r rune) bool { return r == '\'' || r >= '\u2018' && r <= '\u201b' }
	f.Fuzz(func(t *testing.T, s string) {
		q := QuotePwsh(s)
		if q == s {
			if s == "" || s[0] == '-' || strings.Trim(s, safePwsh) != "" {
				t.Fatalf("%q left bare", s)
			}
			return
		}
		rs := []rune(q)
		if len(rs) < 2 || rs[0] != '\'' || rs[len(rs)-1] != '\'' {
			t.Fatalf("%q: %s is not in single quotes", s, q)
		}
		var back []rune
		inner := rs[1 : len(rs)-1]
		for i := 0; i < len(inner); i++ {
			if isQuote(inner[i]) {
				if i+1 == len(inner) || inner[i+1] != inner[i] {
					t.Fatalf("%q: %s ends its string early", s, q)
				}
				i++
			}
			back = append(back, inner[i])
		}
		if string(back) != string([]rune(s)) {
			t.Fatalf("%q: %s reads back as %q", s, q, string(back))
		}
	})
}
