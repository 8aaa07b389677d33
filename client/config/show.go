package config

import (
	"maps"
	"slices"

	"github.com/mcpc-dev/mcpc/internal/urlx"
)

// redacted stands for a header or env value that 'mcpc config' does not
// show: any of them may be a secret.
const redacted = "<redacted>"

// ShownServer is one server of 'mcpc config': its entry after precedence,
// safe to print, with the file it came from.
type ShownServer struct {
	Name   string  `json:"name"`
	Source string  `json:"source"`
	Server *Server `json:"server"`
	// Unusable is why mcpc cannot use the entry, as in 'mcpc list'.
	Unusable string `json:"unusable,omitempty"`
}

// Shown lists every server an invocation could use, by name, redacted.
func (c *Config) Shown() []ShownServer {
	rows := []ShownServer{}
	for _, name := range slices.Sorted(maps.Keys(c.Servers)) {
		e := c.Servers[name]
		row := ShownServer{Name: name, Source: e.SourceName(), Server: e.Server.Redacted()}
		if err := e.Server.Unusable(); err != nil {
			row.Unusable = err.Error()
		}
		rows = append(rows, row)
	}
	return rows
}

// Redacted is a copy of s to print: the URL without its credentials, each
// env and header value replaced by "<redacted>" (their names stay, as they
// say what the server is given).
func (s *Server) Redacted() *Server {
	c := *s
	if c.URL != "" {
		c.URL = urlx.Redact(c.URL)
	}
	if len(s.Env) > 0 {
		c.Env = map[string]string{}
		for k := range s.Env {
			c.Env[k] = redacted
		}
	}
	if len(s.Headers) > 0 {
		c.Headers = map[string]string{}
		for k := range s.Headers {
			c.Headers[k] = redacted
		}
	}
	return &c
}
