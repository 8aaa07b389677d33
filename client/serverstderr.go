package client

import (
	"io"
	"os"
	"path/filepath"

	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/redact"
	"github.com/mcpc-dev/mcpc/internal/termui"
)

// ServerStderr is where a stdio server's stderr goes (ConnectOptions.
// ServerStderr): the --server-stderr flag (show, hide, or a file relative
// to cwd), unless only its default is in force (flagSet false) and the
// entry's own "serverStderr" says otherwise (a file relative to its config
// file). nil for hide, and for an HTTP server, which has no stderr. show
// writes to stderr; a file keeps what the server wrote with what it was
// sent from the environment (secrets) redacted, as on mcpc's own stderr.
func ServerStderr(e *config.Entry, flag string, flagSet bool, cwd string, stderr io.Writer, secrets *redact.Set) (*termui.StderrWriter, error) {
	if e.Server.URL != "" {
		return nil, nil
	}
	dest, dir, fromConfig := flag, cwd, false
	if s := e.Server.ServerStderr; s != "" && !flagSet && e.File != nil {
		dest, dir, fromConfig = s, e.ConfigDir(cwd), true
	}
	switch dest {
	case "show":
		return termui.NewStderrWriter(stderr, nil, true), nil
	case "hide":
		return nil, nil
	case "":
		return nil, fail.New(fail.Usage, "", "--server-stderr needs show, hide or a file name")
	}
	path := dest
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		if fromConfig {
			return nil, fail.New(fail.Config, "fix \"serverStderr\" in the config file, or override it with --server-stderr", "cannot open the serverStderr file: %v", err)
		}
		return nil, fail.New(fail.Usage, "", "cannot open --server-stderr file: %v", err)
	}
	rw := redact.NewWriter(f, secrets)
	return termui.NewStderrWriter(rw, rw, false), nil
}
