package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A function a reader can hold: under maxLines lines and under
// maxComplexity paths (cyclomatic complexity, counted as gocyclo does).
const (
	maxLines      = 80
	maxComplexity = 25
)

// longFuncs are the functions over a bound today, each with its lines and
// complexity: none may grow, and each leaves the list when it is split. Do
// not add to it; split the function instead.
var longFuncs = map[string]funcSize{}

type funcSize struct{ lines, complexity int }

// TestFunctionSize fails when a function outside longFuncs passes a bound,
// when one in it grows, and when one in it is within bounds or gone (then
// its entry goes).
func TestFunctionSize(t *testing.T) {
	sizes := map[string]funcSize{}
	fset := token.NewFileSet()
	err := walkSources(fset, func(path string, f *ast.File) {
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			s := funcSize{
				lines:      fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1,
				complexity: complexity(fn),
			}
			name := funcName(filepath.ToSlash(filepath.Dir(path)), fn)
			if old, ok := sizes[name]; ok { // init, or one per platform: the larger
				s = funcSize{max(s.lines, old.lines), max(s.complexity, old.complexity)}
			}
			sizes[name] = s
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	// A walk that found nothing would pass for the wrong reason.
	if len(sizes) < 500 {
		t.Fatalf("only %d functions found: the walk missed the module", len(sizes))
	}
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for n := range sizes {
			if !yield(n) {
				return
			}
		}
	}) {
		s := sizes[name]
		over := s.lines >= maxLines || s.complexity >= maxComplexity
		allowed, listed := longFuncs[name]
		switch {
		case over && !listed:
			t.Errorf("%s has %d lines and complexity %d: split it (the bounds are under %d lines and under %d)", name, s.lines, s.complexity, maxLines, maxComplexity)
		case listed && (s.lines > allowed.lines || s.complexity > allowed.complexity):
			t.Errorf("%s grew to %d lines and complexity %d (allowed %d and %d): split it instead", name, s.lines, s.complexity, allowed.lines, allowed.complexity)
		case listed && !over:
			t.Errorf("%s is within bounds now (%d lines, complexity %d): remove it from longFuncs", name, s.lines, s.complexity)
		}
	}
	for name := range longFuncs {
		if _, ok := sizes[name]; !ok {
			t.Errorf("%s in longFuncs is gone: remove its entry", name)
		}
	}
}

// funcName names fn by its package's directory, its receiver's type and
// its name: "client/transport HTTP.roundTrip".
func funcName(dir string, fn *ast.FuncDecl) string {
	name := fn.Name.Name
	if fn.Recv != nil && len(fn.Recv.List) > 0 {
		typ := fn.Recv.List[0].Type
		if star, ok := typ.(*ast.StarExpr); ok {
			typ = star.X
		}
		switch x := typ.(type) {
		case *ast.IndexExpr:
			typ = x.X
		case *ast.IndexListExpr:
			typ = x.X
		}
		if id, ok := typ.(*ast.Ident); ok {
			name = id.Name + "." + name
		}
	}
	return dir + " " + name
}

// complexity is gocyclo's count: 1, and 1 for each if, for, range, case
// (not default), select case (not default), && and ||, function literals
// within counted with their function.
func complexity(fn *ast.FuncDecl) int {
	c := 1
	ast.Inspect(fn, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.IfStmt, *ast.ForStmt, *ast.RangeStmt:
			c++
		case *ast.CaseClause:
			if n.List != nil {
				c++
			}
		case *ast.CommClause:
			if n.Comm != nil {
				c++
			}
		case *ast.BinaryExpr:
			if n.Op == token.LAND || n.Op == token.LOR {
				c++
			}
		}
		return true
	})
	return c
}

// walkSources parses each non-test Go file of the module (not under a
// dot directory, testdata or node_modules) and hands it to f.
func walkSources(fset *token.FileSet, f func(path string, file *ast.File)) error {
	return filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		file, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err == nil {
			f(path, file)
		}
		return err
	})
}
