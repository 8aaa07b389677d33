package sessions

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/client/conn"
	"github.com/mcpc-dev/mcpc/client/state"
	"github.com/mcpc-dev/mcpc/client/transport"
	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/shellwords"
	"github.com/mcpc-dev/mcpc/internal/textsafe"
	"github.com/mcpc-dev/mcpc/internal/urlx"
)

// Sessions starts, reaches, lists and stops the sessions of one user: a
// session is a holder (mcpc session start, detached) that keeps one
// server running across invocations.
type Sessions struct {
	Store   *state.Sessions
	Cwd     string          // the invocation's working directory, a holder's too
	Environ func() []string // a started holder's environment
	Notes   io.Writer       // where notes go: the invocation's stderr
	Now     func() time.Time
	// Config loads the configuration and AdHoc is the command line's
	// target: together they say which entry a record's server is now.
	Config func() (*config.Config, error)
	AdHoc  config.AdHoc
	// HolderArgs is the command line of the holder a keepAlive entry
	// starts (KeepAlive).
	HolderArgs func(name string, idle time.Duration) []string
}

// SessionStore is the store of session records: under stateDir, with
// sockets under runtimeDir (XDG_RUNTIME_DIR) when it is absolute.
func SessionStore(stateDir, runtimeDir string) *state.Sessions {
	run := ""
	if filepath.IsAbs(runtimeDir) {
		run = filepath.Join(runtimeDir, "mcpc")
	}
	return state.NewSessions(stateDir, run)
}

// EntryIdentity says which entry a session was started for: a
// configured server's source and name (a changed definition is the same
// entry, changed), an ad-hoc target's command line or URL. Where the
// invocation runs is no part of it.
func EntryIdentity(e *config.Entry, name string) string {
	if e.File == nil {
		return state.HashKey("stdio", name, conn.SessionKey(e, ""))
	}
	return state.HashKey("entry", e.SourceName(), name)
}

// SessionServerName is how a session names what it holds: a configured
// server's name, an ad-hoc URL as messages print it (redacted), or
// "--stdio" for a command line (which may carry a secret, so it is not
// repeated).
func SessionServerName(e *config.Entry) string {
	switch {
	case e.File != nil:
		return e.Name
	case e.Server.URL != "":
		return urlx.Redact(e.Server.URL)
	}
	return "--stdio"
}

// stdioServerName is SessionServerName of a --stdio server.
var stdioServerName = SessionServerName(&config.Entry{Server: &config.Server{}})

// adhocRecord reports whether rec is the session of an ad-hoc target (a
// --stdio command or a URL, started with --name) rather than of a
// configured entry: a configured server's name is never a URL (one
// would be taken for the URL).
func adhocRecord(rec *state.SessionRecord) bool {
	return rec.Server == stdioServerName || config.IsURL(rec.Server)
}

// StatelessNote is said of a session that holds a 2026-07-28 HTTP
// server: such a server keeps nothing between requests, so the session
// saves only the start-up (discovery, credentials, connections).
func StatelessNote(r *state.SessionRecord) string {
	if r.Transport != "http" || r.Revision < "2026-07-28" {
		return ""
	}
	return fmt.Sprintf("session %s holds a %s HTTP server, which keeps no state between requests: the session saves only start-up work", textsafe.Name(r.Name), r.Revision)
}

// holderKilled says why a session ended whose holder is gone without a
// word: killed outright, its server with it (parent-death signal).
func holderKilled(pid int) string {
	return fmt.Sprintf("its holder (pid %d) exited without ending it (killed?), and its server with it", pid)
}

// HolderRunning reports whether rec's holder process runs: its pid is
// alive and, where the record knows the holder's start, the process
// started then. A killed holder's pid taken by another process is not
// waited for, signalled, or taken for a live session. A start that
// matches is a live process (ProcessStart is "" for one gone or exited),
// so /proc is read once.
func HolderRunning(rec *state.SessionRecord) bool {
	if rec.HolderStart != "" {
		return transport.ProcessStart(rec.PID) == rec.HolderStart
	}
	return processAlive(rec.PID)
}

// holderAlive reports whether the holder of rec is live (lookHolder): it
// answers, or it is busy. A socket that takes the connection is not
// enough: a stopped (SIGSTOP) or hung holder's does too (the kernel's
// backlog). One that runs without answering or being busy is an error
// (exit 5) that names it and how to end it: it must not be taken for a
// live session, nor have a second holder started beside it.
func holderAlive(ctx context.Context, rec *state.SessionRecord) (bool, error) {
	l := lookHolder(ctx, rec)
	if l.hung {
		return false, hungHolder(rec, l.why)
	}
	return l.status == StatusRunning || l.status == StatusBusy, nil
}

// askHolder sends the holder of rec one request of its own and returns
// the result.
func askHolder(ctx context.Context, rec *state.SessionRecord, method string) (json.RawMessage, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	s, err := transport.DialHolder(ctx, rec.Socket)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	if d, ok := ctx.Deadline(); ok {
		s.SetDeadline(d)
	}
	id, _ := jsonrpc.MakeID("mcpc-session")
	data, _ := jsonrpc.EncodeMessage(&jsonrpc.Request{ID: id, Method: method, Params: json.RawMessage("{}")})
	if _, err := s.Write(append(data, '\n')); err != nil {
		return nil, err
	}
	r := transport.NewMessageReader(s, 1<<20)
	for {
		msgs, err := r.Read()
		if err != nil {
			return nil, err
		}
		for _, m := range msgs {
			if resp, ok := m.(*jsonrpc.Response); ok && resp.ID == id {
				if resp.Error != nil {
					return nil, resp.Error
				}
				return resp.Result, nil
			}
		}
	}
}

// AdhocEntry is the entry that stands for a session started with
// --name for a --stdio command or a URL under name, nil when there is
// none: such a session is reached by its name.
func (s *Sessions) AdhocEntry(name string) *config.Entry {
	if rec := s.Store.Read(name); rec != nil && adhocRecord(rec) {
		return &config.Entry{Name: name, Server: &config.Server{Command: "--stdio"}}
	}
	return nil
}

// Held is the live session of entry for an invocation to use, nil when
// there is none; adhoc says entry is AdhocEntry's. A keepAlive entry's
// session is started first. A session that ended without being stopped
// is an error: its state is gone, and a fresh server behind the
// script's back would hide that.
func (s *Sessions) Held(ctx context.Context, entry *config.Entry, opts conn.ConnectOptions, adhoc bool) (*conn.Held, error) {
	rec, _, err := s.KeepAlive(ctx, entry, false)
	if err != nil {
		return nil, err
	}
	if rec == nil {
		rec = s.Store.Read(entry.Name)
	}
	if rec == nil {
		return nil, nil
	}
	if !adhoc && rec.Entry != EntryIdentity(entry, entry.Name) {
		// Another entry of the name (another file's, a --stdio server's)
		// is another target: said, since a script that meant the session
		// would otherwise lose its state without a word.
		if rec.Ended == "" && HolderRunning(rec) {
			textsafe.Note(s.Notes, "session %s holds another server of that name (another config file's or directory's, or a --stdio command): this invocation starts its own", textsafe.Name(rec.Name))
		}
		return nil, nil
	}
	if err := s.sameCredentials(entry, rec, opts, adhoc); err != nil {
		return nil, err
	}
	if rec.Ended != "" {
		return nil, conn.SessionEnded(rec.Name, rec.Ended, nil)
	}
	if !adhoc && rec.Key != conn.SessionKey(entry, opts.CredentialID) {
		textsafe.Note(s.Notes, "session %s runs the definition of %q it was started with; to use the changed one, stop the session and start it again", textsafe.Name(rec.Name), entry.Name)
	}
	name := rec.Name
	return &conn.Held{Name: name, Socket: rec.Socket, Revision: rec.Revision, Key: rec.Key, PID: rec.PID,
		Ended:   func(ctx context.Context) (string, bool) { return s.ended(ctx, name) },
		Silence: heldSilence(rec)}, nil
}

// credentialParts is CredentialParts of entry as opts reach it; nil for
// a --stdio server (its command line is its identity, and it has no
// "env"). An ad-hoc URL's are its --header and --bearer-env.
func (s *Sessions) credentialParts(entry *config.Entry, opts conn.ConnectOptions) (map[string]string, error) {
	if entry.File == nil && entry.Server.URL == "" {
		return nil, nil
	}
	return conn.CredentialParts(entry, s.Cwd, opts.CredentialID, opts.Getenv, opts.Memo)
}

// sameCredentials is SameCredentials of the invocation reaching rec; adhoc
// says entry is AdhocEntry's. An ad-hoc session reached by its name is
// reached with its own credential, unless the invocation brings one
// (--header, --bearer-env): that one must be the session's, as a
// configured entry's must.
func (s *Sessions) sameCredentials(entry *config.Entry, rec *state.SessionRecord, opts conn.ConnectOptions, adhoc bool) error {
	if adhoc {
		if len(s.AdHoc.Headers) == 0 && s.AdHoc.BearerEnv == "" {
			return nil
		}
		target := &config.Entry{Name: rec.Name, Server: &config.Server{}}
		if config.IsURL(rec.Server) {
			target.Server.URL = rec.Server
		}
		var err error
		if entry, err = s.AdHoc.Onto(target); err != nil {
			return err
		}
	}
	return s.SameCredentials(entry, rec, opts)
}

// SameCredentials refuses an invocation whose credentials are not those
// rec's holder reached its server with: another token never reaches a
// session, which would act with the token it started with.
func (s *Sessions) SameCredentials(entry *config.Entry, rec *state.SessionRecord, opts conn.ConnectOptions) error {
	parts, err := s.credentialParts(entry, opts)
	if err != nil {
		return err
	}
	var differ []string
	for k, v := range parts {
		if rec.Creds[k] != v {
			differ = append(differ, k)
		}
	}
	for k := range rec.Creds {
		if _, ok := parts[k]; !ok {
			differ = append(differ, k)
		}
	}
	if len(differ) == 0 {
		return nil
	}
	slices.Sort(differ)
	q := shellwords.Quote(rec.Name)
	return fail.New(fail.Config, "to use this invocation's, stop the session ('mcpc session stop "+q+"') and start it again; --no-session starts a server for this invocation alone",
		"session %s holds its server with other credentials than this invocation's (%s differ)", textsafe.Name(rec.Name), strings.Join(differ, ", "))
}

// ended says why a session whose holder went away ended, and whether
// its holder is alive after all (it answers, or is busy: the session did
// not end). A holder killed outright said nothing and left its socket:
// that is found, said in its record and the socket removed, under the
// lock. ctx bounds the look (the invocation's --timeout).
func (s *Sessions) ended(ctx context.Context, name string) (why string, alive bool) {
	ss := s.Store
	rec := ss.Read(name)
	switch {
	case rec == nil:
		return "it was stopped", false
	case rec.Ended != "":
		return rec.Ended, false
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	unlock, err := ss.Lock(ctx, name)
	if err != nil {
		return "", false
	}
	defer unlock()
	if rec = ss.Read(name); rec == nil {
		return "it was stopped", false
	}
	if alive, _ := holderAlive(ctx, rec); rec.Ended != "" || alive {
		return rec.Ended, alive
	}
	if HolderRunning(rec) {
		return "", false // ending on its own: it says why
	}
	rec.Ended = holderKilled(rec.PID)
	ss.Write(rec)
	ss.RemoveSocket(name)
	return rec.Ended, false
}

// removedFrom is the config file rec's configured entry came from when
// cfg reads that file and it no longer defines the entry's name; nil
// otherwise (an ad-hoc target's session, a file this invocation does not
// read, an entry still there).
func removedFrom(cfg *config.Config, rec *state.SessionRecord) *config.File {
	if adhocRecord(rec) {
		return nil
	}
	for _, f := range cfg.Files {
		if f.Err == nil && f.Servers[rec.Server] == nil && EntryIdentity(&config.Entry{File: f}, rec.Server) == rec.Entry {
			return f
		}
	}
	return nil
}

// RemovedEntry is the error for a server name the configuration does not
// define while a live session still holds the entry that was removed:
// "unknown server" alone would hide a server left running. nil when no
// such session runs.
func (s *Sessions) RemovedEntry(cfg *config.Config, name string) error {
	rec := s.Store.Read(name)
	if rec == nil || rec.Ended != "" || !HolderRunning(rec) {
		return nil
	}
	f := removedFrom(cfg, rec)
	if f == nil {
		return nil
	}
	return fail.New(fail.Config, "stop the session with 'mcpc session stop "+shellwords.Quote(rec.Name)+"' (its server ends with it)",
		"unknown server %q: session %s still holds it, but its entry is no longer in %s", name, textsafe.Name(rec.Name), f.Path)
}

// Holds reports whether a live session holds the configured server name
// (mcpc list shows it): one whose holder runs and that was started for
// this entry.
func (s *Sessions) Holds(cfg *config.Config, name string) bool {
	rec := s.Store.Read(name)
	if rec == nil || rec.Ended != "" || !HolderRunning(rec) {
		return false
	}
	e, err := cfg.Resolve(name, s.AdHoc)
	return err == nil && EntryIdentity(e, name) == rec.Entry
}
