// Package hold is a session's holder: one connection to a stdio or
// Streamable HTTP server, held across invocations, which attach to it
// over a socket and each run the one-shot's code above their transport
// (docs/design.md, "The session holder"). It reaches the connection only
// through Upstream (conn.Relay), and speaks to invocations in MCP plus
// what client/holdwire defines.
package hold
