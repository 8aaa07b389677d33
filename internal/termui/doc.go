// Package termui is mcpc's side of the user's terminal: the live progress
// line and a server's stderr passed through to ours. It knows nothing of
// commands, configuration or sessions.
package termui
