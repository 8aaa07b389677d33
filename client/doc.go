// Package client turns one configured server (a config.Entry) into a
// connected MCP session and runs the one-shot operations (list, call, read,
// prompt) on it. Connector is the one way a command gets there from a
// SERVER argument: resolving it, the project-trust rules, routing through
// a running session, the stored credential, then Connect.
//
// It owns everything between "an entry" and "a result object": the era
// decision, the handshake, the results of each request exactly as they
// arrived, and the argument checks against a tool's inputSchema. Config
// sources, project trust and the safety rules for URLs and ${VAR} values
// live in client/config; what outlives an invocation (era verdicts, cached
// results, detached-task records) lives in client/state, where a server is
// named by the key serverKey derives from its entry; the stdio process, the
// HTTP round trips and the bounds on what a server sends live in
// client/transport. Tools that run as tasks are followed, cancelled,
// detached and resumed by client/tasks, through the small interface of the
// session it defines (tasks_session.go implements it). Errors it returns
// are *fail.Error values made where the failure happens; their code fixes
// the exit status.
package client
