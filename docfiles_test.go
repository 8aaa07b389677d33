package main

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// docFilesProblems are the Go files (or globs of them) a text names in
// code spans, such as `client/era.go`, that match nothing.
func docFilesProblems(text string, glob func(string) ([]string, error)) []string {
	var problems []string
	for _, m := range regexp.MustCompile("`((?:[a-z0-9_.*-]+/)+[a-z0-9_*.-]+\\.go)`").FindAllStringSubmatch(text, -1) {
		if found, err := glob(m[1]); err != nil || len(found) == 0 {
			problems = append(problems, m[1])
		}
	}
	return problems
}

// README and docs/*.md name only Go files that are there: a file moved
// (client/ split into packages) takes its mentions with it.
func TestDocsNameRealFiles(t *testing.T) {
	files, err := filepath.Glob("docs/*.md")
	if err != nil || len(files) == 0 {
		t.Fatalf("no docs/*.md: %v", err)
	}
	for _, f := range append(files, "README.md") {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range docFilesProblems(string(data), filepath.Glob) {
			t.Errorf("%s names %s, which is not there", f, p)
		}
	}
	got := docFilesProblems("the one explainer (`client/explain.go`), hooks in `*/testhooks_on.go`, `go test`", func(p string) ([]string, error) {
		if p == "*/testhooks_on.go" {
			return []string{"commands/testhooks_on.go"}, nil
		}
		return nil, nil
	})
	if len(got) != 1 || got[0] != "client/explain.go" {
		t.Errorf("docFilesProblems of a moved file: %q", got)
	}
}
