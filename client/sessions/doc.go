// Package sessions is what an invocation does with sessions, servers held
// across invocations: start one (its holder process runs client/hold),
// find and attach to a running one (conn.Held), list them with a status
// that is known rather than guessed, and stop them. Records and sockets
// live in client/state's store.
package sessions
