package config

import (
	"fmt"

	"github.com/mcpc-dev/mcpc/internal/urlx"
)

// ShownName is how output and messages name the entry's server, and what a
// hint tells the user to type: its configured name, or for a URL given on
// the command line that URL with any query values redacted (they may be
// secrets).
func (e *Entry) ShownName() string {
	if e.File == nil && e.Server.URL != "" {
		return urlx.Redact(e.Name)
	}
	return e.Name
}

// Label is the server as a sentence names it: `server "NAME"`, or
// `server at URL` (redacted) for a URL given on the command line.
func (e *Entry) Label() string {
	if e.File == nil && e.Server.URL != "" {
		return "server at " + urlx.Redact(e.Server.URL)
	}
	return fmt.Sprintf("server %q", e.Name)
}
