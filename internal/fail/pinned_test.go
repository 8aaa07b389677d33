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
// print is pinned by a test: a unit test or a script names its fixed
// text. The ones that cannot be reached from a test are listed, with why,
// in testdata/unpinned.txt; a new message is either pinned or listed.
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
		case strings.HasSuffix(path, "_test.go"), strings.HasSuffix(path, ".txtar"):
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			corpus.Write(data)
			corpus.WriteByte('\n')
		case strings.HasSuffix(path, ".go"):
			collectFormats(t, path, formats)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Scripts escape regexp characters and Go tests escape quotes: compare
	// without backslashes, and with a script's doubled quote undone.
	text := strings.NewReplacer(`\`, "", "''", "'").Replace(corpus.String())
	listed := readUnpinned(t)
	var missing []string
	pinned := 0
	for format, where := range formats {
		if strings.Contains(text, fragment(format)) {
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

// fragment is the longest fixed run of text in a format.
func fragment(format string) string {
	best := ""
	for _, part := range verb.Split(format, -1) {
		if part = strings.ReplaceAll(part, `\`, ""); len(part) > len(best) {
			best = part
		}
	}
	return best
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
