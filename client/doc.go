// Package client turns mcpc's layered configuration into one connected MCP
// session and runs the one-shot operations (list, call, read, prompt) on it.
//
// It owns everything between "a server name on the command line" and "a result
// object": config sources and their precedence, project trust, the safety rules
// for URLs and ${VAR} values, starting stdio servers in their own process group
// (and making sure none of them outlive the invocation), Streamable HTTP
// clients, and the argument checks against a tool's inputSchema. Errors it
// returns are *fail.Error values made where the failure happens; their code
// fixes the exit status.
package client
