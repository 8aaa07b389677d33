package commands

import (
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/helptext"
)

// hostEntries are the mcpServers entries a text shows as one line of JSON,
// each as the mcpc command line it runs ("" when its command is not mcpc).
func hostEntries(t *testing.T, text string) []string {
	t.Helper()
	var lines []string
	for _, m := range regexp.MustCompile(`(?m)^\s*(\{"mcpServers":.*\})\s*$`).FindAllStringSubmatch(text, -1) {
		var cfg struct {
			MCPServers map[string]struct {
				Command string   `json:"command"`
				Args    []string `json:"args"`
			} `json:"mcpServers"`
		}
		if err := json.Unmarshal([]byte(m[1]), &cfg); err != nil {
			t.Errorf("a host entry that is not JSON: %s: %v", m[1], err)
			continue
		}
		for _, e := range cfg.MCPServers {
			if e.Command != "mcpc" {
				lines = append(lines, "")
				continue
			}
			lines = append(lines, "mcpc "+strings.Join(e.Args, " "))
		}
	}
	return lines
}

// The host entry mcpc help serve and the agents guide give is JSON a host
// reads, and runs a command mcpc has: mcpc serve, with nothing secret in
// it (no env, no headers: serve reads them from mcpc's own config).
func TestServeHostEntry(t *testing.T) {
	root := newRoot(&state{})
	for _, name := range []string{"serve", "agents"} {
		text := topicText(t, name)
		entries := hostEntries(t, text)
		if !slices.Equal(entries, []string{"mcpc serve github"}) {
			t.Errorf("mcpc help %s shows the host entries %q; want one that runs mcpc serve github", name, entries)
		}
		for _, line := range entries {
			if p := guideProblems(root, "    "+line+"\n"); len(p) > 0 {
				t.Errorf("mcpc help %s: its host entry runs what mcpc does not have: %s", name, strings.Join(p, "; "))
			}
		}
		if strings.Contains(text, `{"mcpServers":{"github":{"command":"mcpc","args":["serve","github"],`) {
			t.Errorf("mcpc help %s: the host entry carries more than mcpc's command line", name)
		}
	}
	// And the check sees an entry that runs another command, or no JSON.
	if got := hostEntries(t, `  {"mcpServers":{"gh":{"command":"npx","args":["x"]},"s":{"command":"mcpc","args":["serve","s"]}}}`); !slices.Contains(got, "") || !slices.Contains(got, "mcpc serve s") {
		t.Errorf("hostEntries of a mixed entry: %q", got)
	}
}

// mcpc help serve prints the topic (a topic of a command's name is the
// topic, as mcpc help skills is), and the topic says what the issue asks
// it to: how the server is reached, the era rule, what clients share and
// never share, the redaction rule, how serve ends.
func TestServeTopicSays(t *testing.T) {
	code, out, stderr := run(t, t.TempDir(), false, "help", "serve")
	if code != 0 || stderr != "" || out != topicText(t, "serve") {
		t.Fatalf("mcpc help serve: exit %d, stderr %q, stdout not the topic:\n%s", code, stderr, out)
	}
	text := strings.Join(strings.Fields(out), " ")
	for _, s := range []string{
		"never holds what reaching the server takes: its token",
		"A configured server goes through its live session",
		"serve holds the session itself",
		"it ends with serve, its server with it",
		"With --no-session, and for a --stdio or URL target, serve holds the server alone",
		"gets a connection of its own era",
		"the one case in which a stateful server's state is not shared",
		"a stateful server's state (a counter, a browser page, an open document, a login) is one",
		"A client's requests are its own",
		"progress reaches only the client whose request asked for it",
		"it is refused with an error, never guessed",
		"replaced by <redacted>",
		"serve runs until the host closes its stdin, or SIGINT or SIGTERM",
		"--timeout does not bound it",
		"an entry's includeTools and excludeTools hold for the host too",
		"an unknown or ended one is 404",
		"their tools and prompts are named SERVER__NAME",
		"the later one's is mcpc+resource://SERVER/URI",
		"refused with 403: a web page cannot reach serve through DNS rebinding",
	} {
		if !strings.Contains(text, s) {
			t.Errorf("mcpc help serve does not say %q", s)
		}
	}
}

// The exit statuses mcpc help serve lists are statuses of the error
// model, each once, in its order, and each status a failure of serve can
// have (its code's) is among them.
func TestServeTopicExitStatuses(t *testing.T) {
	text := topicText(t, "serve")
	i := strings.Index(text, "Exit status:\n")
	if i < 0 {
		t.Fatal(`mcpc help serve has no "Exit status:" list`)
	}
	var listed []int
	for _, m := range regexp.MustCompile(`(?m)^  (\d+) {2,}`).FindAllStringSubmatch(text[i:], -1) {
		n, _ := strconv.Atoi(m[1])
		listed = append(listed, n)
	}
	var known []int
	for _, st := range fail.Statuses {
		known = append(known, st.Exit)
	}
	if !slices.IsSorted(listed) || len(slices.Compact(slices.Clone(listed))) != len(listed) {
		t.Errorf("mcpc help serve lists the statuses %v: not once each in order", listed)
	}
	for _, n := range listed {
		if !slices.Contains(known, n) {
			t.Errorf("mcpc help serve lists exit %d, which the error model does not have", n)
		}
	}
	serves := []fail.Code{fail.Usage, fail.Config, fail.Untrusted, fail.AuthRequired, fail.Connection, fail.ServerExited, fail.ConnectTimeout, fail.Interrupted}
	for _, c := range fail.Codes {
		if slices.Contains(serves, c.Code) && !slices.Contains(listed, c.Exit) {
			t.Errorf("serve can fail with %s (exit %d), which mcpc help serve does not list", c.Code, c.Exit)
		}
	}
}

// The README's reference table names every topic mcpc help has.
func TestReadmeListsEveryTopic(t *testing.T) {
	table := tableColumn(readDoc(t, "README.md"), 0)
	for _, name := range helptext.Names() {
		if _, ok := table["`"+name+"`"]; !ok {
			t.Errorf("README.md's topic table has no row for `%s`", name)
		}
	}
}
