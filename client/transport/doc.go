// Package transport is how mcpc reaches a server, below the MCP SDK and
// below the session: a stdio server's process (its own process group or
// Job object, the subreaper and parent-death signal, its stderr, the
// teardown that leaves nothing behind), the HTTP round trips (headers and
// redirects for the configured origin only, Retry-After, the server's own
// TLS files), and the tap every raw message passes on either transport,
// which bounds one message's size and depth, the server's unanswered
// requests and its silence, and reads event streams with the one parser.
// An HTTP answer the SDK cannot use comes back as an *HTTPError in the
// error of the very request it answered. mcpc's own requests beside the
// SDK (the task methods) get their routing headers encoded here
// (HeaderValue) and their answers read here (ReadAnswer), from a JSON
// body or an event stream.
//
// It knows nothing of eras, tools or config files: what the session does
// with each message is its Wire's (package client's), and everything a
// server's entry says reaches it as plain values. It imports nothing of
// package client or its other packages.
package transport
