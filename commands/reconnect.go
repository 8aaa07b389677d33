package commands

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/urfave/cli/v3"

	"github.com/mcpc-dev/mcpc/client"
	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/format"
	"github.com/mcpc-dev/mcpc/internal/textsafe"
	"github.com/mcpc-dev/mcpc/internal/urlx"
)

type reconnectOptions struct {
	server string
}

func reconnectCommand(st *state) *cli.Command {
	return &cli.Command{
		Name:      "reconnect",
		Usage:     "forget what mcpc remembers about a server, connect afresh and show what it is",
		ArgsUsage: "SERVER",
		Description: `Drops the server's remembered protocol era and its cached results, probes
it again, and prints its identity, the negotiated protocol revision, its
capabilities and instructions. Credentials, remembered scopes and detached
tasks are kept. It never starts an authorization.

Example:
   mcpc reconnect github --json`,
		Action: st.serverAction(func(ctx context.Context, cmd *cli.Command, g *globals) error {
			server, err := soleTarget(g, cmd.Args().Slice())
			if err != nil {
				return err
			}
			return st.runReconnect(ctx, g, &reconnectOptions{server: server})
		}),
	}
}

func (st *state) runReconnect(ctx context.Context, g *globals, o *reconnectOptions) error {
	entry, err := st.resolve(g, o.server)
	if err != nil {
		return err
	}
	g.reprobe = true
	sess, closeFn, err := st.openEntry(ctx, g, entry)
	if err != nil {
		return err
	}
	defer closeFn()
	r := sess.initializeResult()
	if g.mode == format.ModeJSON || g.query != "" {
		return st.print(g, format.KindGeneric, map[string]any{
			"serverInfo":      r.ServerInfo,
			"protocolVersion": r.ProtocolVersion,
			"capabilities":    r.Capabilities,
			"instructions":    r.Instructions,
		})
	}
	// The reader going away (… | head) is not a failure.
	_, _ = io.WriteString(st.env.Stdout, serverSummary(r, entry, sess.speaksSSE()))
	return nil
}

// Instructions can be long (a manual for the model); the summary shows
// their start, and --json all of them.
const (
	maxInstructionLines = 20
	maxInstructionBytes = 2048
)

// serverSummary is reconnect's text: who the server is, how mcpc reached
// it and what it offers, one line each, then its instructions. Everything
// the server wrote is stripped of escape sequences.
func serverSummary(r *mcp.InitializeResult, entry *config.Entry, sse bool) string {
	var b strings.Builder
	server := "unnamed"
	if r.ServerInfo != nil && r.ServerInfo.Name != "" {
		server = strings.TrimSpace(r.ServerInfo.Name + " " + r.ServerInfo.Version)
	}
	fmt.Fprintf(&b, "Server: %s\n", textsafe.OneLine(server))
	fmt.Fprintf(&b, "Protocol: %s\n", textsafe.OneLine(r.ProtocolVersion))
	transport := "stdio"
	switch {
	case sse:
		transport = "HTTP+SSE, " + urlx.Redact(entry.Server.URL)
	case entry.Server.URL != "":
		transport = "Streamable HTTP, " + urlx.Redact(entry.Server.URL)
	}
	fmt.Fprintf(&b, "Transport: %s\n", transport)
	fmt.Fprintf(&b, "Capabilities: %s\n", capabilityList(r.Capabilities))
	if text := strings.TrimSpace(textsafe.StripControl(r.Instructions)); text != "" {
		b.WriteString("Instructions:\n")
		lines := strings.Split(text, "\n")
		cut := len(lines) > maxInstructionLines
		lines = lines[:min(len(lines), maxInstructionLines)]
		size := 0
		for i, line := range lines {
			if size+len(line) > maxInstructionBytes {
				line = line[:max(maxInstructionBytes-size, 0)]
				for line != "" && !utf8.ValidString(line) {
					line = line[:len(line)-1] // not inside a character
				}
				lines, cut = lines[:i], true
				if line != "" {
					lines = append(lines, line)
				}
				break
			}
			size += len(line) + 1
		}
		for _, line := range lines {
			b.WriteString(strings.TrimRight("  "+line, " \t") + "\n")
		}
		if cut {
			b.WriteString("  … (cut short; --json prints them whole)\n")
		}
	}
	return b.String()
}

// capabilityList names what the server declares, with the optional
// features of each in parentheses: "tools (listChanged), resources
// (subscribe), prompts, logging, tasks".
func capabilityList(c *mcp.ServerCapabilities) string {
	if c == nil {
		return "none"
	}
	type feature struct {
		on   bool
		name string
	}
	var words []string
	add := func(name string, features ...feature) {
		var on []string
		for _, f := range features {
			if f.on {
				on = append(on, f.name)
			}
		}
		if len(on) > 0 {
			name += " (" + strings.Join(on, ", ") + ")"
		}
		words = append(words, name)
	}
	if t := c.Tools; t != nil {
		add("tools", feature{t.ListChanged, "listChanged"})
	}
	if r := c.Resources; r != nil {
		add("resources", feature{r.Subscribe, "subscribe"}, feature{r.ListChanged, "listChanged"})
	}
	if p := c.Prompts; p != nil {
		add("prompts", feature{p.ListChanged, "listChanged"})
	}
	if c.Completions != nil {
		add("completions")
	}
	//lint:ignore SA1019 deprecated in 2026-07-28, yet what a 2025 server declares
	if c.Logging != nil {
		add("logging")
	}
	// The 2026-07-28 tasks extension is the tasks capability of that era.
	if _, ok := c.Extensions[client.TaskExtension]; ok {
		add("tasks")
	}
	for _, name := range slices.Sorted(maps.Keys(c.Extensions)) {
		if name != client.TaskExtension {
			add(textsafe.OneLine(name))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(c.Experimental)) {
		add(textsafe.OneLine(name) + " (experimental)")
	}
	if len(words) == 0 {
		return "none"
	}
	return strings.Join(words, ", ")
}
