// Package config is what mcpc knows before it reaches a server: the server
// model and its parsing with file:line:column, validation, ${VAR}
// expansion, the URL rules, the sources and their precedence, ad-hoc
// targets from the command line, the project trust store, and edits of a
// config file that keep every byte around the entry. It imports nothing of
// package client (the session depends on it, never the reverse). Errors
// are *fail.Error values, mostly fail.Config (exit 3).
package config
