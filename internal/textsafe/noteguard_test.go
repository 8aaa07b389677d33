package textsafe_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestNoteHasOnePrinter keeps Note the only way a note is printed: a
// hand-written "mcpc: note: " prefix skips the stripping Note does, so a
// server's string could reach the terminal raw, and one-line notes would
// drift apart in form. Only string literals count, so a comment may still
// quote a note.
func TestNoteHasOnePrinter(t *testing.T) {
	const printer = "internal/textsafe/note.go"
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	seen := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			// Hidden directories (.cache, .git) and testdata hold no code of
			// the module's.
			if path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		seen++
		if rel == printer {
			return nil
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil {
				return true
			}
			// The prefix whole, or its tail when written piecemeal
			// ("mcpc: " + "note: ").
			if strings.Contains(s, "mcpc: note:") || strings.HasPrefix(s, "note: ") {
				pos := fset.Position(lit.Pos())
				t.Errorf("%s:%d: a note written by hand (%s): print it with textsafe.Note", rel, pos.Line, lit.Value)
			}
			// Warnings too: they quote server text as notes do.
			if strings.Contains(s, "mcpc: warning:") || strings.HasPrefix(s, "warning: ") {
				pos := fset.Position(lit.Pos())
				t.Errorf("%s:%d: a warning written by hand (%s): print it with textsafe.Warn", rel, pos.Line, lit.Value)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// A walk that found nothing would pass for the wrong reason.
	if seen < 50 {
		t.Fatalf("only %d Go files found under %s: the walk missed the module", seen, root)
	}
}
