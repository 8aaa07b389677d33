package fail

import (
	"bufio"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// messageMakers are the functions that make a failure from a format
// string, and the index of that argument.
var messageMakers = map[string]int{
	"fail.New":  2, // (code, hint, format, args...)
	"fail.Wrap": 3, // (code, err, hint, format, args...)
	"New":       2, // the same, inside package fail
	"Wrap":      3,
	"usagef":    1, // commands: (hint, format, args...)
	"configErr": 3, // client/config: (path, data, off, format, args...)
}

// verb matches a fmt verb, which a test sees filled in.
var verb = regexp.MustCompile(`%[-+# 0-9.*\[\]]*[a-zA-Z%]`)

// An error message is what a user acts on, so every one the code can
// print is pinned by a test: one assertion of a script, or one string a
// unit test expects, holds all of its fixed text. The ones that cannot be
// reached from a test are listed, with why, in testdata/unpinned.txt; a
// new message is either pinned or listed.
// go test ./internal/fail -run TestErrorMessagesPinned -v lists them all.
func TestErrorMessagesPinned(t *testing.T) {
	root := "../.."
	formats := map[string]string{} // format → where
	var corpus strings.Builder
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		switch {
		case strings.HasSuffix(path, "_test.go"):
			testStrings(t, path, &corpus)
		case strings.HasSuffix(path, ".txtar"):
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			scriptAssertions(data, &corpus)
		case strings.HasSuffix(path, ".go"):
			collectFormats(t, path, formats)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Scripts (and Go tests' regexps) escape regexp characters: compare
	// without backslashes, and with a script's doubled quote undone.
	text := strings.NewReplacer(`\`, "", "''", "'").Replace(corpus.String())
	assertions := strings.Split(text, "\n")
	listed := readUnpinned(t)
	var missing []string
	pinned := 0
	for format, where := range formats {
		if pinnedIn(assertions, format) {
			pinned++
			if _, ok := listed[format]; ok {
				t.Errorf("%s: %q is pinned now: take it off testdata/unpinned.txt", where, format)
			}
			continue
		}
		if _, ok := listed[format]; !ok {
			missing = append(missing, where+": "+strconv.Quote(format))
		}
	}
	// A listed format the code no longer has would hide its successor's
	// being unpinned behind a reason that no longer holds.
	for format := range listed {
		if _, ok := formats[format]; !ok {
			t.Errorf("testdata/unpinned.txt lists %q, which no code prints any more: take it off", format)
		}
	}
	sort.Strings(missing)
	t.Logf("%d of %d error message formats are pinned by a test; %d listed as unpinned", pinned, len(formats), len(listed))
	for _, m := range missing {
		t.Errorf("no test pins the error message %s: pin it in a script or unit test, or list it with why in internal/fail/testdata/unpinned.txt", m)
	}
}

// testStrings adds the string literals of the Go test file at path: a
// test pins a message with the text it expects, never with a comment.
func testStrings(t *testing.T, path string, corpus *strings.Builder) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	// A message built as "prefix " + path + " suffix" is one expectation:
	// the literals of a sum go on one line together; what else the sum
	// holds (a call's arguments) is visited on its own.
	var visit func(n ast.Node) bool
	var sum func(e ast.Expr, rest *[]ast.Expr)
	sum = func(e ast.Expr, rest *[]ast.Expr) {
		switch e := e.(type) {
		case *ast.BinaryExpr:
			if e.Op == token.ADD {
				sum(e.X, rest)
				sum(e.Y, rest)
				return
			}
		case *ast.ParenExpr:
			sum(e.X, rest)
			return
		case *ast.BasicLit:
			if s, err := strconv.Unquote(e.Value); err == nil && e.Kind == token.STRING {
				corpus.WriteString(s)
			}
			return
		}
		*rest = append(*rest, e)
	}
	visit = func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BinaryExpr:
			if n.Op != token.ADD {
				return true
			}
		case *ast.BasicLit:
		default:
			return true
		}
		var rest []ast.Expr
		sum(n.(ast.Expr), &rest)
		corpus.WriteByte('\n')
		for _, e := range rest {
			ast.Inspect(e, visit)
		}
		return false
	}
	ast.Inspect(f, visit)
}

// pinningCommands are the script commands whose arguments say what output
// holds; cmp and its kin pin with the archived file they name.
var (
	pinningCommands = map[string]bool{"stdout": true, "stderr": true, "grep": true, "expect": true, "waitfile": true}
	comparing       = map[string]bool{"cmp": true, "cmpenv": true, "cmpjson": true}
	scriptCondition = regexp.MustCompile(`^(\[[^\]]*\]\s*)*`)
)

// scriptAssertions adds what the script's positive assertions expect: the
// lines of stdout, stderr and grep (a message in a comment, in a file the
// script writes, or after ! is not pinned by it) and the archived files
// that cmp compares with.
func scriptAssertions(data []byte, corpus *strings.Builder) {
	ar := txtar.Parse(data)
	files := map[string][]byte{}
	for _, f := range ar.Files {
		files[f.Name] = f.Data
	}
	for _, line := range strings.Split(string(ar.Comment), "\n") {
		line = strings.TrimSpace(scriptCondition.ReplaceAllString(strings.TrimSpace(line), ""))
		args := strings.Fields(line)
		switch {
		case len(args) == 0:
		case pinningCommands[args[0]]:
			corpus.WriteString(line)
			corpus.WriteByte('\n')
		case comparing[args[0]]:
			for _, name := range args[1:] {
				corpus.Write(files[name])
				corpus.WriteByte('\n')
			}
		}
	}
}

// pinnedIn reports whether one of the assertions (a line each) holds
// every fixed part of the format: its longest one alone is often a phrase
// that an unrelated message or hint shares ("at the identity provider").
func pinnedIn(assertions []string, format string) bool {
	parts := fixedParts(format)
	for _, a := range assertions {
		if containsAll(a, parts) {
			return true
		}
	}
	return false
}

// fixedParts are the runs of text between a format's verbs that say
// something: 4 bytes or more once trimmed (not ": " or " ("), or the
// longest run when none is that long.
func fixedParts(format string) []string {
	var parts []string
	best := ""
	for _, part := range verb.Split(format, -1) {
		part = strings.ReplaceAll(part, `\`, "")
		if len(part) > len(best) {
			best = part
		}
		if part = strings.TrimSpace(part); len(part) >= 4 {
			parts = append(parts, part)
		}
	}
	if len(parts) == 0 {
		return []string{best}
	}
	return parts
}

func containsAll(s string, parts []string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}

// collectFormats adds the literal message formats of the Go file at path.
func collectFormats(t *testing.T, path string, formats map[string]string) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	add := func(e ast.Expr) {
		lit, ok := e.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return
		}
		s, err := strconv.Unquote(lit.Value)
		if err != nil || strings.TrimSpace(verb.ReplaceAllString(s, "")) == "" {
			return // nothing fixed to pin
		}
		p := fset.Position(lit.Pos())
		rel, _ := filepath.Rel("../..", p.Filename)
		formats[s] = filepath.ToSlash(rel) + ":" + strconv.Itoa(p.Line)
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			if i, ok := messageMakers[callName(n.Fun)]; ok && i < len(n.Args) {
				add(n.Args[i])
			}
		case *ast.CompositeLit:
			if callName(n.Type) != "fail.Error" && callName(n.Type) != "Error" {
				return true
			}
			for _, el := range n.Elts {
				kv, ok := el.(*ast.KeyValueExpr)
				if !ok || callName(kv.Key) != "Msg" {
					continue
				}
				if call, ok := kv.Value.(*ast.CallExpr); ok && callName(call.Fun) == "fmt.Sprintf" && len(call.Args) > 0 {
					add(call.Args[0])
				} else {
					add(kv.Value)
				}
			}
		}
		return true
	})
}

func callName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		if x, ok := e.X.(*ast.Ident); ok {
			return x.Name + "." + e.Sel.Name
		}
	}
	return ""
}

// readUnpinned reads testdata/unpinned.txt: a Go-quoted format per line,
// then why no test reaches it; # starts a comment.
func readUnpinned(t *testing.T) map[string]string {
	f, err := os.Open("testdata/unpinned.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	listed := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		q, err := strconv.QuotedPrefix(line)
		if err != nil {
			t.Fatalf("testdata/unpinned.txt: %q: want a quoted format, then why", line)
		}
		s, _ := strconv.Unquote(q)
		listed[s] = strings.TrimSpace(line[len(q):])
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return listed
}
