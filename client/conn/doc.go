// Package conn is the connection to one server (Conn): everything between
// "an entry" and "a result object". It decides the era once (era.go),
// makes the handshake over stdio, Streamable HTTP, HTTP+SSE or a
// session's socket (connect*.go), runs the one-shot operations (list,
// call, read, prompt, complete, ping, tasks, skills) with the results of
// each request exactly as they arrived (wire.go), and explains every
// failure with one explainer (explain.go). What the server asks while a
// request runs is client/input's; the stdio process, the HTTP round trips
// and the bounds on what a server sends are client/transport's.
//
// Relay (relay.go) is the connection as a session's holder uses it: the
// one seam between this package and client/hold.
package conn
