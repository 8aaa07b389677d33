package commands

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
	"github.com/urfave/cli/v3"

	"github.com/mcpc-dev/mcpc/client/skills"
	"github.com/mcpc-dev/mcpc/internal/helptext"
)

// skillServer serves one SKILL.md to skills.Fetch, as a server's
// resources/read would.
type skillServer struct{ text string }

func (skillServer) Label() string                                        { return "mcpc help agents --skill" }
func (skillServer) Extension(string) gjson.Result                        { return gjson.Parse(`{}`) }
func (skillServer) Explain(_ context.Context, _ string, err error) error { return err }
func (skillServer) Request(context.Context, string, string, map[string]any) (json.RawMessage, error) {
	return nil, fmt.Errorf("not a server")
}
func (s skillServer) Read(_ context.Context, uri string, _ int64) (json.RawMessage, error) {
	return json.Marshal(map[string]any{"contents": []any{map[string]any{"uri": uri, "text": s.text}}})
}

// The --skill output passes mcpc's own skill verification, as if a server
// listed it with the frontmatter it means: the entry's checks (its name is
// its directory's, within the size a skill may have), then the file's
// (size, digest, and its YAML frontmatter, read by the bounded parser,
// field by field equal to name and description).
func TestAgentSkillPassesTheSkillsVerifier(t *testing.T) {
	code, out, stderr := run(t, t.TempDir(), false, "help", "agents", "--skill")
	if code != 0 || stderr != "" {
		t.Fatalf("mcpc help agents --skill: exit %d, stderr %q", code, stderr)
	}
	sum := sha256.Sum256([]byte(out))
	entry, _ := json.Marshal(map[string]any{
		"uri":         "skill://mcpc/SKILL.md",
		"frontmatter": map[string]any{"name": helptext.SkillName, "description": helptext.SkillDescription},
		"resources": []any{map[string]any{
			"uri": "skill://mcpc/SKILL.md", "digest": "sha256:" + hex.EncodeToString(sum[:]), "size": len(out)}},
	})
	e, err := skills.ParseEntry("mcpc help agents --skill", entry)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := skills.Fetch(t.Context(), skillServer{out}, e, false); err != nil {
		t.Fatal(err)
	}
	// What the Agent Skills format asks of the two fields.
	if !regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`).MatchString(helptext.SkillName) || len(helptext.SkillName) > 64 {
		t.Errorf("name %q: lowercase letters, digits and single hyphens, at most 64", helptext.SkillName)
	}
	if n := len(helptext.SkillDescription); n > 1024 {
		t.Errorf("description of %d characters, over the 1024 a skill's may have", n)
	}
	// The body is the topic as mcpc help agents prints it.
	_, plain, _ := run(t, t.TempDir(), false, "help", "agents")
	if !strings.HasSuffix(out, "---\n\n"+plain) {
		t.Errorf("--skill's body is not mcpc help agents:\n%s", out)
	}
}

// A frontmatter the verifier refuses fails the same test: a description
// written plainly with a colon and a space is YAML that is not a string.
func TestSkillsVerifierRefusesABrokenFrontmatter(t *testing.T) {
	out := "---\nname: mcpc\ndescription: Find tools: fast\n---\nbody\n"
	sum := sha256.Sum256([]byte(out))
	entry, _ := json.Marshal(map[string]any{
		"uri": "skill://mcpc/SKILL.md", "frontmatter": map[string]any{"name": "mcpc", "description": "Find tools: fast"},
		"resources": []any{map[string]any{"uri": "skill://mcpc/SKILL.md", "digest": "sha256:" + hex.EncodeToString(sum[:]), "size": len(out)}},
	})
	e, err := skills.ParseEntry("x", entry)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := skills.Fetch(t.Context(), skillServer{out}, e, false); err == nil {
		t.Fatal("a frontmatter that is not YAML passed")
	}
}

// guideProblems finds what a guide names that the command tree does not
// have: each `mcpc WORD…` (on a line of its own, or quoted in the text)
// must start with a visible command, descending into subcommands as far
// as its words name them, and each --flag on that line must be one of
// that command's or a global one; a --flag anywhere else must be some
// command's.
// madeOfSubcommands says whether each way c is used starts with one of
// its subcommands (mcpc session, mcpc task), unlike mcpc skills SERVER.
func madeOfSubcommands(c *cli.Command) bool {
	if len(subNames(c)) == 0 {
		return false
	}
	for _, alt := range strings.Split(c.ArgsUsage, " | ") {
		for _, w := range strings.Split(strings.SplitN(alt, " ", 2)[0], "|") {
			if w != "" && c.Command(w) == nil {
				return false
			}
		}
	}
	return true
}

// unknownSub is the first of word's alternatives (get|result) that is
// not a visible subcommand of c, or "".
func unknownSub(c *cli.Command, word string) string {
	for _, w := range strings.Split(word, "|") {
		if sub := c.Command(w); sub == nil || sub.Hidden {
			return w
		}
	}
	return ""
}

func guideProblems(root *cli.Command, guide string) []string {
	var problems []string
	has := func(c *cli.Command, flag string) bool {
		for _, f := range c.Flags {
			if slices.Contains(f.Names(), flag) {
				return true
			}
		}
		return false
	}
	anywhere := func(flag string) bool {
		found := false
		var walk func(*cli.Command)
		walk = func(c *cli.Command) {
			found = found || has(c, flag)
			for _, sub := range c.Commands {
				walk(sub)
			}
		}
		walk(root)
		return found
	}
	flagRE := regexp.MustCompile(`(?:^|[\s('"])--([a-z][a-z-]*)`)
	cmdRE := regexp.MustCompile(`(?m)(?:^[ \t]+|')mcpc[ \t]+([^'\n]*)`)
	onLine := map[string]bool{}
	for _, m := range cmdRE.FindAllStringSubmatch(guide, -1) {
		words := strings.Fields(m[1])
		if len(words) == 0 || strings.HasPrefix(words[0], "-") {
			problems = append(problems, fmt.Sprintf("mcpc %s: no command", m[1]))
			continue
		}
		cmd := root.Command(words[0])
		if cmd == nil || cmd.Hidden {
			problems = append(problems, fmt.Sprintf("mcpc %s: no command %q", m[1], words[0]))
			continue
		}
		for _, w := range words[1:] {
			if sub := cmd.Command(w); sub != nil && !sub.Hidden {
				cmd = sub
			}
		}
		// A command made of subcommands takes one next: a word there
		// that is none is a subcommand renamed or never there.
		if len(words) > 1 && madeOfSubcommands(root.Command(words[0])) && !strings.ContainsAny(words[1][:1], "-[") {
			if w := unknownSub(root.Command(words[0]), words[1]); w != "" {
				problems = append(problems, fmt.Sprintf("mcpc %s: no command \"%s %s\"", m[1], words[0], w))
				continue
			}
		}
		for _, f := range flagRE.FindAllStringSubmatch(m[1], -1) {
			onLine[f[1]] = true
			if !has(cmd, f[1]) && !has(root, f[1]) {
				problems = append(problems, fmt.Sprintf("mcpc %s: %s has no flag --%s", m[1], cmd.FullName(), f[1]))
			}
		}
		// -q and other short flags on the line.
		for _, w := range words {
			if len(w) == 2 && w[0] == '-' && !has(cmd, w[1:]) && !has(root, w[1:]) {
				problems = append(problems, fmt.Sprintf("mcpc %s: %s has no flag %s", m[1], cmd.FullName(), w))
			}
		}
	}
	for _, f := range flagRE.FindAllStringSubmatch(guide, -1) {
		if !onLine[f[1]] && !anywhere(f[1]) {
			problems = append(problems, fmt.Sprintf("--%s: no command has it", f[1]))
		}
	}
	return problems
}

// Every command and flag the guide names exists, so the guide fails this
// test when one is renamed or removed.
func TestAgentsGuideNamesRealCommandsAndFlags(t *testing.T) {
	root := newRoot(&state{})
	guide := topicText(t, "agents")
	if p := guideProblems(root, guide); len(p) > 0 {
		t.Errorf("mcpc help agents names what mcpc does not have:\n%s", strings.Join(p, "\n"))
	}
	// And the check sees what it is for: it finds every one of these.
	bad := "    mcpc frobnicate SERVER\n    mcpc call SERVER TOOL --no-such-flag\n" +
		"    mcpc session begin SERVER --idle 1m --shell -z\nsay 'mcpc logon SERVER', and --nowhere\n"
	want := []string{
		`mcpc frobnicate SERVER: no command "frobnicate"`,
		`mcpc call SERVER TOOL --no-such-flag: call has no flag --no-such-flag`,
		`mcpc session begin SERVER --idle 1m --shell -z: no command "session begin"`,
		`mcpc logon SERVER: no command "logon"`,
		`--nowhere: no command has it`,
	}
	if got := guideProblems(root, bad); !slices.Equal(got, want) {
		t.Errorf("problems of a bad guide:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The guide names what it is about.
	for _, s := range []string{"mcpc grep PATTERN", "mcpc list SERVER TOOL", "key=value", "--query", "mcpc session start SERVER", "mcpc login", "exits 4",
		// An unknown argument name is exit 2 only where the schema says so.
		`schema forbids other names ("additionalProperties": false)`} {
		if !strings.Contains(guide, s) {
			t.Errorf("the guide does not mention %q", s)
		}
	}
}

// --skill belongs to the agents topic only.
func TestHelpSkillIsForAgentsOnly(t *testing.T) {
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"help", "config", "--skill"}, `mcpc: error: --skill is only for the agents topic, not for "config"`},
		{[]string{"help", "--skill", "call"}, `mcpc: error: --skill is only for the agents topic, not for "call"`},
		{[]string{"help", "--skill"}, `mcpc: error: --skill is only for the agents topic, not for 'mcpc help' alone`},
	} {
		code, out, stderr := run(t, t.TempDir(), false, tc.args...)
		want := tc.msg + "\nmcpc: hint: install the guide for coding agents with: mkdir -p ~/.claude/skills/mcpc && mcpc help agents --skill > ~/.claude/skills/mcpc/SKILL.md\n"
		if code != 2 || out != "" || stderr != want {
			t.Errorf("mcpc %s: exit %d, stdout %q, stderr %q; want exit 2 and %q", strings.Join(tc.args, " "), code, out, stderr, want)
		}
	}
}

// topicText is mcpc help NAME's text.
func topicText(t *testing.T, name string) string {
	t.Helper()
	topic, ok := helptext.Find(name)
	if !ok {
		t.Fatalf("no topic %q", name)
	}
	return topic.Text(helpValues())
}
