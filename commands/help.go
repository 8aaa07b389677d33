package commands

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/mcpc-dev/mcpc/client"
	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/client/transport"
	"github.com/mcpc-dev/mcpc/internal/helptext"
	"github.com/mcpc-dev/mcpc/internal/units"
	"github.com/urfave/cli/v3"
)

// helpValues are the defaults the help topics state, from the constants
// they describe.
func helpValues() helptext.Values {
	return helptext.Values{
		MaxMessage: units.SizeText(transport.DefaultMaxMessage),
		KeepAlive:  durationText(config.DefaultKeepAlive),
		// The defaults of --probe-timeout and session start --idle.
		ProbeTimeout: durationText(client.DefaultProbeTimeout),
		SessionIdle:  durationText(client.DefaultSessionIdle),
	}
}

type helpOptions struct {
	topic string
	skill bool // --skill: the agents topic as an Agent Skill
}

func helpCommand(st *state) *cli.Command {
	return &cli.Command{
		Name:      "help",
		Usage:     "show help for a command, or a topic: " + topicNames(),
		ArgsUsage: "[COMMAND | " + strings.ReplaceAll(topicNames(), ", ", " | ") + "]",
		Metadata: examples(
			"how servers are configured, and which file wins", "mcpc help config",
			"what each exit status means", "mcpc help exit-codes",
			"install the guide for coding agents as a Claude Code skill", "mcpc help agents --skill > ~/.claude/skills/mcpc/SKILL.md",
		),
		Flags: []cli.Flag{&cli.BoolFlag{Name: "skill", Usage: "with the agents topic: print it as an Agent Skill (SKILL.md, with frontmatter)"}},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.Args().Len() > 1 {
				return usagef("", "unexpected argument %q", cmd.Args().Get(1))
			}
			return st.runHelp(ctx, cmd.Root(), helpOptions{topic: cmd.Args().First(), skill: cmd.Bool("skill")})
		},
	}
}

func (st *state) runHelp(ctx context.Context, root *cli.Command, o helpOptions) error {
	if o.skill {
		return printSkill(st.env.Stdout, o.topic)
	}
	if o.topic == "" {
		return cli.ShowRootCommandHelp(root)
	}
	if t, ok := helptext.Find(o.topic); ok {
		_, err := io.WriteString(st.env.Stdout, t.Text(helpValues()))
		return err
	}
	if sub := root.Command(o.topic); sub != nil && !sub.Hidden {
		return cli.ShowCommandHelp(ctx, root, o.topic)
	}
	var cmds []string
	for _, c := range root.VisibleCommands() {
		cmds = append(cmds, c.Name)
	}
	return usagef("topics: "+topicNames()+"; commands: "+strings.Join(cmds, ", "), "no help for %q", o.topic)
}

func topicNames() string {
	return strings.Join(helptext.Names(), ", ")
}

// example is one line of a command's EXAMPLES section.
type example struct {
	What string
	Line string
}

// examples keeps a command's examples in its Metadata, where the help
// template and the man page generator both find them.
func examples(pairs ...string) map[string]any {
	var ex []example
	for i := 0; i+1 < len(pairs); i += 2 {
		ex = append(ex, example{What: pairs[i], Line: pairs[i+1]})
	}
	return map[string]any{"examples": ex}
}

// commandExamples returns the examples of cmd, for the man page.
func commandExamples(cmd *cli.Command) (what, line []string) {
	ex, _ := cmd.Metadata["examples"].([]example)
	for _, e := range ex {
		what, line = append(what, e.What), append(line, e.Line)
	}
	return what, line
}

// commandHelpTemplate is urfave's command help without the global options,
// which the root help lists once, and with the command's examples.
const commandHelpTemplate = `NAME:
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

// setHelp gives every command below root the same help layout, and the
// same usage-error handling.
func setHelp(root *cli.Command) {
	var walk func(*cli.Command)
	walk = func(c *cli.Command) {
		for _, sub := range c.Commands {
			sub.CustomHelpTemplate = commandHelpTemplate
			sub.OnUsageError = root.OnUsageError
			walk(sub)
		}
	}
	walk(root)
}

// printSkill answers `mcpc help TOPIC --skill`, which only the agents
// topic has.
func printSkill(w io.Writer, topic string) error {
	if topic != "agents" {
		return usagef("install the guide for coding agents with: mcpc help agents --skill > ~/.claude/skills/mcpc/SKILL.md",
			"--skill is only for the agents topic, not for %s", topicOrNothing(topic))
	}
	_, err := io.WriteString(w, helptext.Skill(helpValues()))
	return err
}

func topicOrNothing(topic string) string {
	if topic == "" {
		return "'mcpc help' alone"
	}
	return fmt.Sprintf("%q", topic)
}
