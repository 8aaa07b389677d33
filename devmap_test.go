package main

import (
	"maps"
	"os"
	"os/exec"
	"path"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// mapProblems compares docs/development.md's layout block with the
// module's packages: each package has a line of its own, or is named in
// the line of the nearest directory above it that has one ("its
// generator in man/render"); tools and fixtures below bench/ and
// testscripts/ belong to their directory's line. Each directory a line
// names exists.
func mapProblems(layout string, pkgs []string, exists func(string) bool) []string {
	lines := map[string]string{}
	for _, m := range regexp.MustCompile(`(?m)^([A-Za-z.][\w./-]*/)[ \t]+(.*(?:\n[ \t]{8,}.*)*)`).FindAllStringSubmatch(layout, -1) {
		lines[strings.TrimSuffix(m[1], "/")] = strings.Join(strings.Fields(m[2]), " ")
	}
	var problems []string
	for _, pkg := range pkgs {
		if _, ok := lines[pkg]; ok || pkg == "." {
			continue
		}
		if top, _, _ := strings.Cut(pkg, "/"); top == "bench" || top == "testscripts" {
			if _, ok := lines[top]; ok {
				continue
			}
		}
		covered := false
		for dir := path.Dir(pkg); dir != "."; dir = path.Dir(dir) {
			if text, ok := lines[dir]; ok {
				// internal/fail/report may be named fail/report there.
				rest := strings.TrimPrefix(pkg, path.Dir(dir)+"/")
				covered = strings.Contains(text, pkg) || strings.Contains(text, rest)
				break
			}
		}
		if !covered {
			problems = append(problems, "package "+pkg+" has no line")
		}
	}
	dirs := slices.Sorted(maps.Keys(lines))
	for _, dir := range dirs {
		if !exists(dir) {
			problems = append(problems, dir+"/ does not exist")
		}
	}
	return problems
}

// docs/development.md's map of the repository lists every package go
// list finds, and nothing that is not there.
func TestDevelopmentMap(t *testing.T) {
	data, err := os.ReadFile("docs/development.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	i := strings.Index(doc, "## Layout")
	parts := strings.SplitN(doc[max(i, 0):], "```", 3)
	if i < 0 || len(parts) < 3 {
		t.Fatal("docs/development.md has no ## Layout with a ``` block")
	}
	out, err := exec.Command("go", "list", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []string
	for line := range strings.Lines(string(out)) {
		pkgs = append(pkgs, rel(strings.TrimSpace(line)))
	}
	exists := func(dir string) bool { _, err := os.Stat(dir); return err == nil }
	for _, p := range mapProblems(parts[1], pkgs, exists) {
		t.Error("docs/development.md's layout: " + p)
	}
	// The check sees a package left out and a line left behind.
	got := mapProblems("client/     the connection\nman/   the page; its generator in man/render\nbench/   measurements\n", []string{"client", "client/conn", "man", "man/render", "bench/x"}, func(d string) bool { return d != "man" })
	want := []string{"package client/conn has no line", "man/ does not exist"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("mapProblems of a stale map:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
