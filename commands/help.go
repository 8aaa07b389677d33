package commands

import (
	"context"
	"io"
	"strings"

	"github.com/mcpc-dev/mcpc/client/conn"

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
		KeepAlive:  units.DurationText(config.DefaultKeepAlive),
		// The defaults of --probe-timeout and session start --idle.
		ProbeTimeout: units.DurationText(conn.DefaultProbeTimeout),
		SessionIdle:  units.DurationText(client.DefaultSessionIdle),
		RecordMax:    units.SizeText(transport.DefaultRecordMax),
	}
}

type helpOptions struct {
	topic string
	skill bool // --skill: the agents topic as an Agent Skill
}

func helpCommand(st *state) *cli.Command {
	return &cli.Command{
		Name:      "help",
		Usage:     "show help for a command, or a topic: " + helptext.NameList(", "),
		ArgsUsage: "[COMMAND | " + helptext.NameList(" | ") + "]",
		Metadata: helptext.Examples(
			"how servers are configured, and which file wins", "mcpc help config",
			"what each exit status means", "mcpc help exit-codes",
			"install the guide for coding agents as a Claude Code skill", helptext.SkillInstall,
		),
		Flags: []cli.Flag{&cli.BoolFlag{Name: "skill", Usage: "with the agents topic: print it as an Agent Skill (SKILL.md, with frontmatter)"}},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if err := noMoreThan(cmd.Args().Slice(), 1, ""); err != nil {
				return err
			}
			return runHelp(ctx, st.env.Stdout, cmd.Root(), helpOptions{topic: cmd.Args().First(), skill: cmd.Bool("skill")})
		},
	}
}

func runHelp(ctx context.Context, stdout io.Writer, root *cli.Command, o helpOptions) error {
	text, err := "", error(nil)
	switch t, ok := helptext.Find(o.topic); {
	case o.skill:
		text, err = helptext.SkillOf(o.topic, helpValues())
	case o.topic == "":
		return cli.ShowRootCommandHelp(root)
	case ok:
		text = t.Text(helpValues())
	case root.Command(o.topic) != nil && !root.Command(o.topic).Hidden:
		return cli.ShowCommandHelp(ctx, root, o.topic)
	default:
		var cmds []string
		for _, c := range root.VisibleCommands() {
			cmds = append(cmds, c.Name)
		}
		return usagef("topics: "+helptext.NameList(", ")+"; commands: "+strings.Join(cmds, ", "), "no help for %q", o.topic)
	}
	if err == nil {
		_, err = io.WriteString(stdout, text)
	}
	return err
}

// setHelp gives every command below root the same help layout, and the
// same usage-error handling.
func setHelp(root *cli.Command) {
	var walk func(*cli.Command)
	walk = func(c *cli.Command) {
		for _, sub := range c.Commands {
			sub.CustomHelpTemplate = helptext.CommandTemplate
			sub.OnUsageError = root.OnUsageError
			walk(sub)
		}
	}
	walk(root)
}
