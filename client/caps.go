package client

import "github.com/modelcontextprotocol/go-sdk/mcp"

// TaskExtension is the 2026-07-28 extension that carries tasks.
const TaskExtension = "io.modelcontextprotocol/tasks"

// envelope is the _meta every 2026-07-28 request carries.
func (s *Session) envelope() map[string]any {
	return map[string]any{
		mcp.MetaKeyProtocolVersion:    s.ProtocolVersion(),
		mcp.MetaKeyClientInfo:         map[string]any{"name": "mcpc", "version": s.opts.Version},
		mcp.MetaKeyClientCapabilities: s.clientCaps(),
	}
}

// clientCaps is what mcpc declares: elicitation when someone or
// something answers, and the tasks extension.
func (s *Session) clientCaps() *mcp.ClientCapabilities {
	c := &mcp.ClientCapabilities{}
	if s.opts.Input.offersElicitation() {
		c.Elicitation = &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}}
	}
	c.AddExtension(TaskExtension, nil)
	return c
}
