package client

import (
	"context"
	"slices"
	"strings"

	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/client/credentials"
	"github.com/mcpc-dev/mcpc/client/sessions"
	"github.com/mcpc-dev/mcpc/client/state"
	"github.com/mcpc-dev/mcpc/creds"
)

// ServerRow is one configured server as mcpc list shows it.
type ServerRow struct {
	Name      string `json:"name"`
	Transport string `json:"transport"`
	Source    string `json:"source"`
	Trusted   bool   `json:"trusted"`
	// Active is false when a higher-precedence source defines the same
	// name, or when the project file is not trusted.
	Active bool `json:"active"`
	// Auth is how an active HTTP server authenticates and whether that
	// is ready (logged in, expires in …, needs login, VAR not set).
	Auth string `json:"auth,omitempty"`
	// Disabled is a "disabled": true entry: listed, never started.
	Disabled bool `json:"disabled,omitempty"`
	// Session says a live session holds the server (mcpc session).
	Session bool `json:"session,omitempty"`
	// Unusable is why mcpc cannot use the entry (it starts with the
	// file, line and column).
	Unusable string `json:"unusable,omitempty"`
}

// newServerRow is the row of one entry of file f.
func newServerRow(memo *state.Memo, name string, f *config.File, trusted, active bool) ServerRow {
	srv := f.Servers[name]
	r := ServerRow{Name: name, Transport: TransportName(memo, srv), Source: f.Path, Trusted: trusted, Active: active, Disabled: srv.Disabled}
	if err := srv.Unusable(); err != nil {
		r.Unusable = err.Error()
	}
	return r
}

// ServerList is what a listing of the configured servers reads besides
// the configuration: what is remembered of each (its transport), the
// credentials (its auth state) and the sessions (whether one holds it).
type ServerList struct {
	Memo        *state.Memo
	Credentials credentials.Credentials
	Sessions    *sessions.Sessions
	// Entry is told of each listed entry, in precedence order, loaded
	// when its file is used (an untrusted project file's are not), so that
	// the caller can say what it does not use of it.
	Entry func(srv *config.Server, loaded bool)
}

// Rows are every server of cfg, including those of an untrusted project
// file (never started, but the user should see them), ordered by name and
// by precedence within a name.
func (l ServerList) Rows(ctx context.Context, cfg *config.Config) []ServerRow {
	rows := []ServerRow{}
	seen := map[string]bool{}
	for i := len(cfg.Files) - 1; i >= 0; i-- {
		f := cfg.Files[i]
		for _, name := range f.Names {
			rows = append(rows, newServerRow(l.Memo, name, f, true, !seen[name]))
			seen[name] = true
			l.Entry(f.Servers[name], true)
		}
	}
	if p := cfg.Project; p != nil && cfg.ProjectTrust != config.Trusted && p.Err == nil {
		for _, name := range p.Names {
			rows = append(rows, newServerRow(l.Memo, name, p, false, false))
			l.Entry(p.Servers[name], false)
		}
	}
	slices.SortStableFunc(rows, func(a, b ServerRow) int { return strings.Compare(a.Name, b.Name) })
	// A keyring that fails (one that never answers costs its 10s bound)
	// is asked once, not once per server.
	c := l.Credentials
	c.Store = creds.StickyStore(c.Store)
	for i, r := range rows {
		if r.Active && !r.Disabled && r.Unusable == "" {
			rows[i].Auth = c.StatusOf(ctx, cfg, r.Name)
			rows[i].Session = l.Sessions.Holds(cfg, r.Name)
		}
	}
	return rows
}
