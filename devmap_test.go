package main

import (
	"fmt"
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
			problems = append(problems, "package "+pkg+" has no line here nor a row in the map")
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

// docs/development.md's layout lists every package go list finds that
// the map above it has no row of its own for (the packages below
// internal/, bench/, testscripts/), and nothing that is not there.
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
	rows, err := mapTable(doc)
	if err != nil {
		t.Fatal("docs/development.md: " + err.Error())
	}
	var pkgs []string
	for _, p := range modulePackages(t) {
		if !slices.ContainsFunc(rows, func(r mapRow) bool { return r.pkg == p }) {
			pkgs = append(pkgs, p)
		}
	}
	exists := func(dir string) bool { _, err := os.Stat(dir); return err == nil }
	for _, p := range mapProblems(parts[1], pkgs, exists) {
		t.Error("docs/development.md's layout: " + p)
	}
	// The check sees a package left out and a line left behind.
	got := mapProblems("client/     the connection\nman/   the page; its generator in man/render\nbench/   measurements\n", []string{"client", "client/conn", "man", "man/render", "bench/x"}, func(d string) bool { return d != "man" })
	want := []string{"package client/conn has no line here nor a row in the map", "man/ does not exist"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("mapProblems of a stale map:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// mapRow is a row of docs/development.md's map: a package (or a subtree,
// "x/...") and the imports its last column allows, as layers writes them.
type mapRow struct {
	pkg, owns string
	may       []string
}

// mapTable reads the table of the doc's first section, which must be
// "## Map".
func mapTable(doc string) ([]mapRow, error) {
	i := strings.Index(doc, "\n## ")
	if i < 0 || !strings.HasPrefix(doc[i+1:], "## Map\n") {
		return nil, fmt.Errorf(`the first section is not "## Map"`)
	}
	section := doc[i+len("\n## Map\n"):]
	if j := strings.Index(section, "\n## "); j >= 0 {
		section = section[:j]
	}
	tick := regexp.MustCompile("`([^`]*)`")
	var rows []mapRow
	for line := range strings.Lines(section) {
		cells := strings.Split(strings.Trim(strings.TrimSpace(line), "|"), "|")
		if !strings.HasPrefix(line, "| `") || len(cells) != 3 {
			continue
		}
		pkg := tick.FindStringSubmatch(cells[0])
		if pkg == nil {
			return nil, fmt.Errorf("a row names no package: %s", line)
		}
		r := mapRow{pkg: pkg[1], owns: strings.TrimSpace(cells[1])}
		for _, m := range tick.FindAllStringSubmatch(cells[2], -1) {
			r.may = append(r.may, m[1])
		}
		if regexp.MustCompile(`(^|[^\w/])leaves\b`).MatchString(tick.ReplaceAllString(cells[2], "")) {
			r.may = append(r.may, leaves)
		}
		rows = append(rows, r)
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("## Map has no table of package | owns | may import")
	}
	return rows, nil
}

// mapCell is how the map writes a layer's may list.
func mapCell(may string) string {
	var cells []string
	for _, m := range strings.Fields(may) {
		if m == leaves {
			cells = append(cells, "leaves")
		} else {
			cells = append(cells, "`"+m+"`")
		}
	}
	return strings.Join(cells, ", ")
}

// mapTableProblems compares the map's rows with the packages go list
// shows and with the layers table: each package has its row (its own, or
// its subtree's "x/..."), the row the layers table places it by; each row
// names what is there; each row's last column is that layer's may list.
func mapTableProblems(rows []mapRow, pkgs []string, layers []struct{ pkg, may string }) []string {
	var problems []string
	byPkg := map[string]*mapRow{}
	for i, r := range rows {
		if byPkg[r.pkg] != nil {
			problems = append(problems, "two rows for "+r.pkg)
		}
		byPkg[r.pkg] = &rows[i]
	}
	used := map[string]bool{}
	for _, pkg := range pkgs {
		row := byPkg[pkg]
		for dir := pkg; row == nil && dir != "."; dir = path.Dir(dir) {
			row = byPkg[dir+"/..."]
		}
		if row == nil {
			problems = append(problems, "package "+pkg+" has no row")
			continue
		}
		used[row.pkg] = true
		for _, l := range layers {
			if matches(l.pkg, pkg) {
				if l.pkg != row.pkg {
					problems = append(problems, fmt.Sprintf("package %s is in the row of %s, but layers_test.go places it by %s: give %s a row", pkg, row.pkg, l.pkg, l.pkg))
				}
				break
			}
		}
	}
	for _, r := range rows {
		if !used[r.pkg] {
			problems = append(problems, "the row of "+r.pkg+" names no package go list shows")
			continue
		}
		if r.owns == "" {
			problems = append(problems, "the row of "+r.pkg+" does not say what it owns")
		}
		i := slices.IndexFunc(layers, func(l struct{ pkg, may string }) bool { return l.pkg == r.pkg })
		if i < 0 {
			continue // reported above as placed by another layer
		}
		want := strings.Fields(layers[i].may)
		if !slices.Equal(slices.Sorted(slices.Values(r.may)), slices.Sorted(slices.Values(want))) {
			problems = append(problems, fmt.Sprintf("the row of %s says it may import %s; layers_test.go says: %s", r.pkg, mapCell(strings.Join(r.may, " ")), mapCell(layers[i].may)))
		}
	}
	return problems
}

// docs/development.md opens with a map of the packages that says what
// layers_test.go enforces, of every package go list shows.
func TestDevelopmentMapTable(t *testing.T) {
	data, err := os.ReadFile("docs/development.md")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := mapTable(string(data))
	if err != nil {
		t.Fatal("docs/development.md: " + err.Error())
	}
	pkgs := modulePackages(t)
	for _, p := range mapTableProblems(rows, pkgs, layers) {
		t.Error("docs/development.md's map: " + p)
	}
}

// The check sees a package left out, a row for a package that is gone, a
// subtree that hides a layer of its own, and a may list that disagrees.
func TestMapTableProblemsSeesAWrongMap(t *testing.T) {
	doc := "intro\n\n## Map\n\n| package | owns | may import |\n|---|---|---|\n" +
		"| `.` | main | `commands` |\n" +
		"| `commands` | commands | `client`, `format` |\n" +
		"| `client` | the Connector | `client/conn`, leaves |\n" +
		"| `client/gone` | was here | leaves |\n" +
		"| `internal/...` | leaves | leaves |\n" +
		"\n## Layout\n| `x` | not | read |\n"
	rows, err := mapTable(doc)
	if err != nil {
		t.Fatal(err)
	}
	lay := []struct{ pkg, may string }{
		{".", "commands"},
		{"commands", "client format"},
		{"client", "client/conn client/state"},
		{"client/conn", leaves},
		{"internal/fail/report", "internal/fail"},
		{"internal/...", leaves},
	}
	got := mapTableProblems(rows, []string{".", "commands", "client", "client/conn", "internal/fail", "internal/fail/report"}, lay)
	want := []string{
		"package client/conn has no row",
		"package internal/fail/report is in the row of internal/..., but layers_test.go places it by internal/fail/report: give internal/fail/report a row",
		"the row of client says it may import `client/conn`, leaves; layers_test.go says: `client/conn`, `client/state`",
		"the row of client/gone names no package go list shows",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("mapTableProblems of a wrong map:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if _, err := mapTable("intro\n## Layout\n\n## Map\n| `.` | main | `commands` |\n"); err == nil || err.Error() != `the first section is not "## Map"` {
		t.Errorf("a map that does not open the doc: %v", err)
	}
}

// modulePackages are the packages go list shows, named as layers names
// them.
func modulePackages(t *testing.T) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []string
	for line := range strings.Lines(string(out)) {
		pkgs = append(pkgs, rel(strings.TrimSpace(line)))
	}
	return pkgs
}
