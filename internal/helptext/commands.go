package helptext

import (
	"fmt"
	"strings"

	"github.com/mcpc-dev/mcpc/internal/fail"
)

// NameList is the topics' names joined by sep, for usage lines and hints.
func NameList(sep string) string { return strings.Join(Names(), sep) }

// Body is the topic's text without its first line, the topic's own title:
// the man page gives it a heading instead.
func (t Topic) Body(v Values) string {
	text := t.Text(v)
	if _, rest, ok := strings.Cut(text, "\n"); ok {
		text = strings.TrimLeft(rest, "\n")
	}
	return text
}

// Example is one line of a command's EXAMPLES section.
type Example struct {
	What string
	Line string
}

// Examples keeps a command's examples, given as what-line pairs, in the
// Metadata of its urfave/cli command, where CommandTemplate and the man
// page generator both find them.
func Examples(pairs ...string) map[string]any {
	var ex []Example
	for i := 0; i+1 < len(pairs); i += 2 {
		ex = append(ex, Example{What: pairs[i], Line: pairs[i+1]})
	}
	return map[string]any{"examples": ex}
}

// ExamplesOf returns the examples Examples put in a command's metadata.
func ExamplesOf(metadata map[string]any) []Example {
	ex, _ := metadata["examples"].([]Example)
	return ex
}

// CommandTemplate is urfave/cli's command help without the global
// options, which the root help lists once, and with the command's examples.
const CommandTemplate = `NAME:
   {{template "helpNameTemplate" .}}

USAGE:
   {{template "usageTemplate" .}}{{if .Description}}

DESCRIPTION:
   {{template "descriptionTemplate" .}}{{end}}{{if .VisibleCommands}}

COMMANDS:{{template "visibleCommandTemplate" .}}{{end}}{{if .VisibleFlags}}

OPTIONS:{{template "visibleFlagTemplate" .}}{{end}}{{with index .Metadata "examples"}}

EXAMPLES:{{range .}}
   # {{.What}}
   {{.Line}}{{end}}{{end}}

Global options (--json, --query, --timeout, --config, --stdio, ...): mcpc --help
`

// SkillInstall is the command line that installs the agents guide as a
// Claude Code skill: the directory first, since a fresh home has none
// and the shell's redirection does not make it.
const SkillInstall = "mkdir -p ~/.claude/skills/mcpc && mcpc help agents --skill > ~/.claude/skills/mcpc/SKILL.md"

// SkillOf answers `mcpc help TOPIC --skill`, which only the agents topic
// has.
func SkillOf(topic string, v Values) (string, error) {
	if topic != "agents" {
		named := fmt.Sprintf("%q", topic)
		if topic == "" {
			named = "'mcpc help' alone"
		}
		return "", fail.New(fail.Usage, "install the guide for coding agents with: "+SkillInstall,
			"--skill is only for the agents topic, not for %s", named)
	}
	return Skill(v), nil
}
