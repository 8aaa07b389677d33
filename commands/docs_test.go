package commands

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/mcpc-dev/mcpc/internal/helptext"
	"github.com/urfave/cli/v3"
)

// readDoc reads a file of the repository by its path from the top.
func readDoc(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile("../" + path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// shBlocks are the ```sh blocks of a markdown text.
func shBlocks(md string) []string {
	var blocks []string
	for _, m := range regexp.MustCompile("(?s)```sh\n(.*?)```").FindAllStringSubmatch(md, -1) {
		blocks = append(blocks, m[1])
	}
	return blocks
}

// commandsNamed lists the visible commands, and their visible
// subcommands as "PARENT SUB", that a text names as `mcpc NAME` (a
// subcommand also as one of `mcpc PARENT a|b|c`).
func commandsNamed(root *cli.Command, text string) (named, missing []string) {
	words := map[string]bool{}
	for _, m := range regexp.MustCompile(`mcpc ([a-z][a-z-]*)(?: ([a-z][a-z|-]*))?`).FindAllStringSubmatch(text, -1) {
		words[m[1]] = true
		for _, sub := range strings.Split(m[2], "|") {
			words[m[1]+" "+sub] = true
		}
	}
	for _, c := range root.VisibleCommands() {
		for _, name := range append([]string{c.Name}, subNames(c)...) {
			if words[name] {
				named = append(named, name)
			} else {
				missing = append(missing, name)
			}
		}
	}
	return named, missing
}

// mcpcLines are a shell block's mcpc command lines as guideProblems reads
// them (indented, one a line): each pipeline's mcpc commands without
// the comment, the environment set before them or the server command
// after --; `mcpc --version` as `mcpc help --version`, a flag of the root.
func mcpcLines(block string) string {
	var b strings.Builder
	for _, line := range strings.Split(block, "\n") {
		line, _, _ = strings.Cut(line, " # ")
		for _, seg := range strings.Split(line, " | ") {
			seg = strings.TrimSpace(seg)
			for strings.Contains(strings.SplitN(seg, " ", 2)[0], "=") {
				_, seg, _ = strings.Cut(seg, " ")
			}
			seg, _, _ = strings.Cut(seg, " -- ")
			if rest, ok := strings.CutPrefix(seg, "mcpc --"); ok {
				seg = "mcpc help --" + rest
			}
			if strings.HasPrefix(seg, "mcpc ") {
				b.WriteString("    " + seg + "\n")
			}
		}
	}
	return b.String()
}

func subNames(c *cli.Command) []string {
	var names []string
	for _, sub := range c.VisibleCommands() {
		if sub.Name != "help" {
			names = append(names, c.Name+" "+sub.Name)
		}
	}
	return names
}

// The README's list of every command names every command the tree has,
// subcommands included, and what its code blocks name exists: a command
// added without a line, or a line left after a rename, fails here.
func TestReadmeNamesEveryCommand(t *testing.T) {
	root := newRoot(&state{})
	readme := readDoc(t, "README.md")
	i := strings.Index(readme, "Every command:\n")
	if i < 0 {
		t.Fatal(`README.md has no "Every command:" list`)
	}
	blocks := shBlocks(readme[i:])
	if len(blocks) == 0 {
		t.Fatal(`README.md's "Every command:" has no sh block`)
	}
	if _, missing := commandsNamed(root, blocks[0]); len(missing) > 0 {
		t.Errorf("README.md's command list does not name: mcpc %s", strings.Join(missing, ", mcpc "))
	}
	for _, block := range shBlocks(readme) {
		if p := guideProblems(root, mcpcLines(block)); len(p) > 0 {
			t.Errorf("README.md names what mcpc does not have:\n%s", strings.Join(p, "\n"))
		}
	}
	// And the check sees a command left out.
	if _, missing := commandsNamed(root, "mcpc call\nmcpc session start | mcpc session list\n"); !slices.Contains(missing, "session stop") || slices.Contains(missing, "session list") || !slices.Contains(missing, "config import") {
		t.Errorf("commandsNamed missed what a short list leaves out: %q", missing)
	}
}

// The tour runs as written: a file one of its lines reads (--batch FILE,
// --args @FILE, key=@FILE) is one an earlier line writes.
func TestReadmeTourMakesItsFiles(t *testing.T) {
	readme := readDoc(t, "README.md")
	i := strings.Index(readme, "## A short tour")
	if i < 0 {
		t.Fatal(`README.md has no "## A short tour"`)
	}
	blocks := shBlocks(readme[i:])
	if len(blocks) == 0 {
		t.Fatal("the tour has no sh block")
	}
	if p := unmadeFiles(blocks[0]); len(p) > 0 {
		t.Errorf("the README's tour reads files no line of it makes: %s", strings.Join(p, ", "))
	}
	if p := unmadeFiles("mcpc call --batch calls.jsonl s\n"); !slices.Equal(p, []string{"calls.jsonl"}) {
		t.Errorf("unmadeFiles of a tour that never makes calls.jsonl: %q", p)
	}
}

func unmadeFiles(tour string) []string {
	read := regexp.MustCompile(`(?:--batch |--args @|=@)([A-Za-z0-9_./-]+)`)
	written := regexp.MustCompile(`> ?([A-Za-z0-9_./-]+)`)
	made := map[string]bool{}
	var problems []string
	for _, line := range strings.Split(tour, "\n") {
		for _, m := range read.FindAllStringSubmatch(line, -1) {
			if f := m[1]; f != "-" && !made[f] {
				problems = append(problems, f)
			}
		}
		for _, m := range written.FindAllStringSubmatch(line, -1) {
			made[m[1]] = true
		}
	}
	return problems
}

// --batch's exit status is said the same way in the README, mcpc help
// exit-codes and mcpc call --help.
func TestBatchExitDocumented(t *testing.T) {
	const from, to = "prints a line for every call and exits with", "ends the batch at that line."
	said := func(where, text string) string {
		text = strings.Join(strings.Fields(strings.ReplaceAll(text, "`", "")), " ")
		i := strings.Index(text, from)
		j := strings.Index(text, to)
		if i < 0 || j < i {
			t.Errorf("%s does not say what --batch exits with (%q … %q)", where, from, to)
			return ""
		}
		return text[i : j+len(to)]
	}
	root := newRoot(&state{})
	readme := said("README.md", readDoc(t, "README.md"))
	topic := said("mcpc help exit-codes", topicText(t, "exit-codes"))
	call := said("mcpc call --help", root.Command("call").Description)
	if readme != topic || topic != call {
		t.Errorf("--batch's exit status is said three ways:\nREADME: %s\nhelp exit-codes: %s\ncall --help: %s", readme, topic, call)
	}
}

// docs/development.md lists every Debian package .ci/run installs.
func TestDevelopmentListsCIPackages(t *testing.T) {
	run := readDoc(t, ".ci/run")
	m := regexp.MustCompile(`(?m)^APT_PACKAGES="([^"]*)"`).FindStringSubmatch(run)
	if m == nil {
		t.Fatal(`.ci/run has no APT_PACKAGES="..." line`)
	}
	dev := readDoc(t, "docs/development.md")
	for _, pkg := range strings.Fields(m[1]) {
		if !strings.Contains(dev, "`"+pkg+"`") {
			t.Errorf("docs/development.md does not list %s, which .ci/run installs for the tests", pkg)
		}
	}
}

// docsProblems is guideProblems over every sh block of every document:
// the commands and flags they name exist.
func TestDocsNameRealCommandsAndFlags(t *testing.T) {
	root := newRoot(&state{})
	files, err := filepath.Glob("../docs/*.md")
	if err != nil || len(files) == 0 {
		t.Fatalf("no docs/*.md: %v", err)
	}
	for _, f := range append(files, "../README.md") {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, block := range append(shBlocks(string(data)), inlineCommands(string(data))) {
			if p := guideProblems(root, mcpcLines(block)); len(p) > 0 {
				t.Errorf("%s names what mcpc does not have:\n%s", f, strings.Join(p, "\n"))
			}
		}
	}
	// The check sees a command or flag in a text's code span too.
	if p := guideProblems(root, mcpcLines(inlineCommands("run `mcpc sesion stop` or `mcpc call --tiemout 1s s t`; `mcpc __holder` starts"))); len(p) != 2 {
		t.Errorf("guideProblems of inline commands: %q", p)
	}
}

// inlineCommands are the mcpc command lines a markdown text writes in
// its code spans (`mcpc session start SERVER`), one a line; the hidden
// entry points a design note names (mcpc __holder) are not the user's.
func inlineCommands(md string) string {
	var b strings.Builder
	for _, m := range regexp.MustCompile("`(mcpc [^`\n]*)`").FindAllStringSubmatch(md, -1) {
		if !strings.HasPrefix(m[1], "mcpc __") {
			b.WriteString(strings.ReplaceAll(m[1], `\|`, "|") + "\n")
		}
	}
	return b.String()
}

// tableColumn is one column of a markdown table, by its row's first cell.
func tableColumn(md string, col int) map[string]string {
	cells := map[string]string{}
	split := regexp.MustCompile(`\s*(?:^|[^\\])\|\s*`)
	for _, line := range strings.Split(md, "\n") {
		if !strings.HasPrefix(line, "| ") {
			continue
		}
		parts := split.Split(line, -1)
		if len(parts) > col+1 {
			cells[parts[1]] = parts[col+1]
		}
	}
	return cells
}

// The comparison's mcpc column says what the command tree has: what it
// names exists, and the rows whose answer the tree settles say it.
func TestComparisonMcpcColumn(t *testing.T) {
	root := newRoot(&state{})
	mcpc := tableColumn(readDoc(t, "docs/comparison.md"), 1)
	if len(mcpc) < 10 {
		t.Fatalf("docs/comparison.md's table has %d rows", len(mcpc))
	}
	for row, cell := range mcpc {
		var lines strings.Builder
		for _, m := range regexp.MustCompile("`(mcpc [^`]*)`").FindAllStringSubmatch(cell, -1) {
			lines.WriteString("    " + strings.ReplaceAll(m[1], `\|`, "|") + "\n")
		}
		if p := guideProblems(root, lines.String()); len(p) > 0 {
			t.Errorf("the comparison's mcpc %s names what mcpc does not have:\n%s", row, strings.Join(p, "\n"))
		}
	}
	// Sessions are a command: the daemon row names them.
	if root.Command("session") != nil && !strings.Contains(mcpc["daemon"], "`mcpc session start`") {
		t.Errorf("mcpc has sessions, but the comparison's daemon row says %q", mcpc["daemon"])
	}
	// The transport flag takes sse: the old SSE transport is not a dash.
	sse := false
	for _, f := range root.Flags {
		if sf, ok := f.(*cli.StringFlag); ok && sf.Name == "transport" {
			sse = strings.Contains(sf.Usage, "sse")
		}
	}
	if !sse || strings.Contains(mcpc["stdio / HTTP / old SSE"], "–") {
		t.Errorf("mcpc speaks HTTP+SSE (--transport sse), but the comparison says %q", mcpc["stdio / HTTP / old SSE"])
	}
	for _, c := range []string{"task", "man", "completion"} {
		if root.Command(c) == nil {
			t.Errorf("the comparison names mcpc %s, which the tree does not have", c)
		}
	}
}

// README and mcpc help ci say the same of what an invocation with CI
// credentials writes: no credential, and the state that holds no secret,
// which the script ci_state checks file by file.
func TestCIStateSaid(t *testing.T) {
	kept := []string{"No credential is written anywhere", "the protocol era it found",
		"a random key that names cached results", "results a server marked cacheable", "overflow files"}
	for where, text := range map[string]string{"README.md": readDoc(t, "README.md"), "mcpc help ci": topicText(t, "ci")} {
		text = strings.Join(strings.Fields(text), " ")
		for _, k := range kept {
			if !strings.Contains(text, k) {
				t.Errorf("%s does not say %q of what a CI invocation keeps", where, k)
			}
		}
		if m := regexp.MustCompile(`(?i)nothing (?:is )?(?:written|stored|kept)(?: to| on)? disk|written to disk`).FindString(text); m != "" {
			t.Errorf("%s says %q, but an invocation writes its era and cache key", where, m)
		}
	}
}

// Every help topic names only commands and flags the tree has, as the
// agents guide does (TestAgentsGuide): a server's own command line
// (--stdio '...', or after --) is the server's, not mcpc's.
func TestTopicsNameRealCommandsAndFlags(t *testing.T) {
	root := newRoot(&state{})
	server := regexp.MustCompile(`--stdio '[^']*'| -- .*`)
	for _, name := range helptext.Names() {
		text := server.ReplaceAllString(topicText(t, name), "")
		if p := guideProblems(root, text); len(p) > 0 {
			t.Errorf("mcpc help %s names what mcpc does not have:\n%s", name, strings.Join(p, "\n"))
		}
	}
}
