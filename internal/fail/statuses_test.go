package fail

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// readmeExitTable is the README's exit-code table as Statuses and Codes
// make it.
func readmeExitTable() string {
	var b strings.Builder
	b.WriteString("| exit | meaning | --json codes |\n|---|---|---|\n")
	for _, st := range Statuses {
		var codes []string
		for _, c := range CodesOf(st.Exit) {
			codes = append(codes, "`"+string(c)+"`")
		}
		if len(codes) == 0 {
			codes = []string{"-"}
		}
		fmt.Fprintf(&b, "| %d | %s | %s |\n", st.Exit, st.Meaning, strings.Join(codes, ", "))
	}
	return b.String()
}

// The README's table of exit statuses is the one Statuses and Codes give:
// a row copied by hand and then left behind fails here.
func TestReadmeExitTable(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	start := strings.Index(readme, "| exit | meaning |")
	if start < 0 {
		t.Fatal("README.md has no exit-code table (a line starting \"| exit | meaning |\")")
	}
	table := readme[start:]
	if end := strings.Index(table, "\n\n"); end >= 0 {
		table = table[:end+1]
	}
	if want := readmeExitTable(); table != want {
		t.Errorf("README.md's exit-code table differs from fail.Statuses and fail.Codes; it should read:\n%s\nit reads:\n%s", want, table)
	}
}

// Every code's exit status is one Statuses explains.
func TestEveryCodeHasAStatus(t *testing.T) {
	for _, c := range Codes {
		found := false
		for _, st := range Statuses {
			found = found || st.Exit == c.Exit
		}
		if !found {
			t.Errorf("code %s exits %d, which Statuses does not explain", c.Code, c.Exit)
		}
	}
}
