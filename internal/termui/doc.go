// Package termui is mcpc's side of the user's terminal: the live progress
// line, a server's stderr passed through to ours and the authorization
// link a login shows. It knows nothing of commands, configuration or
// sessions.
package termui
