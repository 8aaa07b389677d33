package commands

import (
	"context"
	"io"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/urfave/cli/v3"

	"github.com/mcpc-dev/mcpc/client"
	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/format"
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
	entry, err := st.connector(g).Resolve(o.server)
	if err != nil {
		return err
	}
	// A copy: the flags the invocation read stay as they were.
	fresh := *g
	fresh.reprobe = true
	sess, closeFn, err := st.connector(&fresh).OpenEntry(ctx, entry)
	if err != nil {
		return err
	}
	defer closeFn()
	r := sess.initializeResult()
	if g.mode == format.ModeJSON || g.query != "" {
		return st.runIO(g).print(format.KindGeneric, map[string]any{
			"serverInfo":      r.ServerInfo,
			"protocolVersion": r.ProtocolVersion,
			"capabilities":    r.Capabilities,
			"instructions":    r.Instructions,
		})
	}
	// The reader going away (… | head) is not a failure.
	_, _ = io.WriteString(st.env.Stdout, serverSummary(r, entry, sess.speaksSSE()).Text())
	return nil
}

// serverSummary is reconnect's text of what the handshake said, with how
// mcpc reached the server.
func serverSummary(r *mcp.InitializeResult, entry *config.Entry, sse bool) format.ServerSummary {
	s := format.ServerSummary{Protocol: r.ProtocolVersion, Transport: "stdio",
		Capabilities: client.CapabilityNames(r.Capabilities), Instructions: r.Instructions}
	if r.ServerInfo != nil {
		s.Name, s.Version = r.ServerInfo.Name, r.ServerInfo.Version
	}
	switch {
	case sse:
		s.Transport = "HTTP+SSE, " + urlx.Redact(entry.Server.URL)
	case entry.Server.URL != "":
		s.Transport = "Streamable HTTP, " + urlx.Redact(entry.Server.URL)
	}
	return s
}
