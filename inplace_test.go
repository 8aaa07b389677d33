package main

import (
	"go/ast"
	"go/token"
	"path/filepath"
	"testing"
)

// copyingReads are gjson's functions that copy what they read (ParseBytes
// the whole input, GetBytes and GetManyBytes each value found): JSON held
// as bytes is read through rawmsg.View instead, where it lies.
var copyingReads = map[string]bool{"GetBytes": true, "ParseBytes": true, "GetManyBytes": true}

// TestJSONReadInPlace fails when code outside tests calls one of
// copyingReads.
func TestJSONReadInPlace(t *testing.T) {
	files := 0
	fset := token.NewFileSet()
	err := walkSources(fset, func(path string, f *ast.File) {
		files++
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok && copyingReads[sel.Sel.Name] {
				if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "gjson" {
					t.Errorf("%s:%d: gjson.%s copies what it reads: use rawmsg.View(data).Get(path) (rawmsg.Within for the bytes of a value)",
						filepath.ToSlash(path), fset.Position(sel.Pos()).Line, sel.Sel.Name)
				}
			}
			return true
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	// A walk that found nothing would pass for the wrong reason.
	if files < 100 {
		t.Fatalf("only %d files found: the walk missed the module", files)
	}
}
