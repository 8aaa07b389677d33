package conn

import (
	"github.com/mcpc-dev/mcpc/client/input"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TaskExtension is the 2026-07-28 extension that carries tasks.
const TaskExtension = "io.modelcontextprotocol/tasks"

// clientCapabilities is what mcpc declares, built here only: the SDK's
// client declares it in the handshake, and mcpc's own 2026-07-28 requests
// (the task methods) in their _meta. It is elicitation, form and URL,
// when someone or something answers (in), and the tasks extension, since
// a tools/call may come back as a task, which mcpc follows, and the skills
// extension (mcpc skills). Nothing else: the SDK would otherwise claim roots.
func clientCapabilities(in *input.Input) *mcp.ClientCapabilities {
	c := &mcp.ClientCapabilities{}
	if in.OffersElicitation() {
		c.Elicitation = &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}}
	}
	c.AddExtension(TaskExtension, nil)
	c.AddExtension(skillExtension, nil)
	return c
}

// ClientCapabilities is what the connection declares to its server, for the
// requests mcpc sends beside the SDK's.
func (s *Conn) ClientCapabilities() *mcp.ClientCapabilities {
	return clientCapabilities(s.opts.Input)
}

// envelope is the _meta every 2026-07-28 request carries.
func (s *Conn) envelope() map[string]any {
	return map[string]any{
		mcp.MetaKeyProtocolVersion:    s.ProtocolVersion(),
		mcp.MetaKeyClientInfo:         map[string]any{"name": "mcpc", "version": s.opts.Version},
		mcp.MetaKeyClientCapabilities: s.ClientCapabilities(),
	}
}
