// Package client is where a command gets from a SERVER argument to a
// result. Connector is the one way there: resolving the argument, the
// project-trust rules, routing through a running session (client/sessions),
// the stored credential (client/credentials), then conn.Connect. Beside it
// are the operations over many servers (check, grep, many) and the
// domain logic a command runs over one (a batch, a call's verdict, a
// described item).
//
// The words: a connection (conn.Conn) is mcpc's MCP connection to one
// server; a session is a server held across invocations by its holder
// (client/hold), which invocations attach to over a socket; an HTTP
// session is a 2025 server's Mcp-Session-Id. docs/design.md's glossary
// has the rest. Errors are *fail.Error values made where the failure
// happens; their code fixes the exit status.
package client
