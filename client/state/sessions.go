package state

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mcpc-dev/mcpc/internal/fsx"
)

// SessionRecord is what mcpc remembers of a session (mcpc session start):
// where its holder listens, what it holds, and once it ended without
// being stopped, why. Nothing in it is secret: the holder's command line
// and the socket's name carry none either.
type SessionRecord struct {
	Name      string `json:"name"`
	Server    string `json:"server"`    // how messages name the server
	Transport string `json:"transport"` // "stdio" or "http"
	Revision  string `json:"revision"`  // the protocol revision the holder negotiated
	PID       int    `json:"pid"`       // the holder's
	// HolderStart is the holder's start (transport.ProcessStart; "" where
	// unknown): a pid reused by another process is not taken for it.
	HolderStart string `json:"holderStart,omitempty"`
	// Served says the holder runs inside mcpc serve: PID is serve's, which
	// outlives the session (an ended session, a stopped one), so the pid
	// alive proves nothing of the holder and is never signalled.
	Served    bool `json:"served,omitempty"`
	ServerPID int  `json:"serverPid,omitempty"`
	// ServerGroup is a stdio server's process group, and ServerStart its
	// leader's start (transport.ProcessStart): what the server started
	// is stopped by the group once the holder is gone (transport.EndGroup).
	ServerGroup int    `json:"serverGroup,omitempty"`
	ServerStart string `json:"serverStart,omitempty"`
	// Idle is how long the holder waits without a request before it
	// ends ("0": until stopped).
	Idle    string    `json:"idle"`
	Started time.Time `json:"started"`
	// Shell is the process whose exit ends the session (--shell).
	Shell int `json:"shell,omitempty"`
	// Key identifies the entry the session was started for (its
	// definition and credential identity, hashed): another entry of the
	// same name is another target.
	Key string `json:"key"`
	// Entry says which entry it holds (source and name, hashed): a name
	// is taken by one target at a time.
	Entry string `json:"entry"`
	// Creds is what the holder reached the server with that the entry's
	// definition does not fix (conn.CredentialParts: each part by
	// name, hashed): an invocation with other parts is refused.
	Creds  map[string]string `json:"creds,omitempty"`
	Socket string            `json:"socket"`
	// Def is the entry's definition as it started, hashed (without its
	// credential): one changed since is marked stale.
	Def string `json:"def,omitempty"`
	// Ended says why the session ended when it was not stopped (its
	// server exited, its holder was killed); "" while it runs. The
	// record is kept so that the next command naming the session says
	// so, rather than quietly starting a fresh server.
	Ended string `json:"ended,omitempty"`
}

// Sessions is the store of session records: one private directory per
// session under the state directory (its record and its server's log),
// a lock file per session beside them, and the sockets in a private
// runtime directory.
type Sessions struct {
	dir, runDir string
}

// NewSessions is the store under stateDir whose sockets live in runDir
// ($XDG_RUNTIME_DIR/mcpc, else under stateDir).
func NewSessions(stateDir, runDir string) *Sessions {
	if runDir == "" {
		runDir = filepath.Join(stateDir, "run")
	}
	return &Sessions{dir: filepath.Join(stateDir, "sessions"), runDir: runDir}
}

// safeName says whether a session name is used as a file name as it is
// (^[a-z0-9][a-z0-9._-]{0,63}$, not ending in a dot, not a Windows
// device name); others are named by their hash. Upper case is hashed
// because macOS's and Windows' file systems fold case ("DB" would be
// "db"'s directory), and Windows drops a final dot and takes "nul" or
// "com1.x" for a device. A loop, not a regexp: compiled at package level
// the regexp was 861 of the allocations of every invocation's start-up,
// and compiled on first use it was 2 % of the CPU of a call through a
// session, which asks on every call.
func safeName(name string) bool {
	if len(name) == 0 || len(name) > 64 || name[len(name)-1] == '.' {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
		case i > 0 && (c == '.' || c == '_' || c == '-'):
		default:
			return false
		}
	}
	return !deviceName(name)
}

// deviceName reports whether the lower-case name, up to its first dot,
// is one Windows keeps for a device (con, prn, aux, nul, com0-9, lpt0-9).
func deviceName(name string) bool {
	base, _, _ := strings.Cut(name, ".")
	switch {
	case base == "con" || base == "prn" || base == "aux" || base == "nul":
		return true
	case len(base) == 4 && (base[:3] == "com" || base[:3] == "lpt"):
		return '0' <= base[3] && base[3] <= '9'
	}
	return false
}

// id is session name's file name in the store. It is one to one: a safe
// name is itself, any other the hash of it behind "_", which no safe name
// begins with (a session named after another's hashed directory is hashed
// in turn), and lock files live apart in lockDir, which no id is, so that
// no name's directory is another's lock ("db.lock" and "db"). Records
// that the former layout kept under another file name (a name with upper
// case, or unsafe: "h-" and 16 digits, which a safe name could take) are
// not looked for: a session started before is started again.
func (s *Sessions) id(name string) string {
	if safeName(name) {
		return name
	}
	return "_" + HashKey(name)
}

// lockDir holds the sessions' lock files: beside the directories, not in
// them (Remove takes a directory, and a waiter would hold the removed
// lock's inode), and named so that no id is it.
const lockDir = "_locks"

// Root is the store's directory: it names the store (the holders of
// its sessions carry it, Sessions.HolderTag).
func (s *Sessions) Root() string { return s.dir }

// Dir is the private directory of the session name: its record and its
// server's log.
func (s *Sessions) Dir(name string) string { return filepath.Join(s.dir, s.id(name)) }

// Owner is the uid that owns session name's directory; false when it has
// none or the system gives none (fsx.Owner).
func (s *Sessions) Owner(name string) (int, bool) {
	st, err := os.Lstat(s.Dir(name))
	if err != nil {
		return 0, false
	}
	return fsx.Owner(st)
}

// LogFile is where the session's server writes its stderr.
func (s *Sessions) LogFile(name string) string { return filepath.Join(s.Dir(name), "server.log") }

// Socket is where the holder of session name listens: a short name (a
// socket address is short), in the private runtime directory.
func (s *Sessions) Socket(name string) string {
	return filepath.Join(s.runDir, HashKey("session", name)[:16]+".sock")
}

// PrepareSocket makes the runtime directory private and removes a stale
// socket at the session's path. Call it under the session's lock.
func (s *Sessions) PrepareSocket(name string) (string, error) {
	if err := fsx.PrivateDir(s.runDir); err != nil {
		return "", err
	}
	path := s.Socket(name)
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	return path, nil
}

// RemoveSocket removes the session's socket file. Call it under the
// session's lock (or as the holder that made it).
func (s *Sessions) RemoveSocket(name string) { os.Remove(s.Socket(name)) }

// Lock takes the session's lock: starting, stopping and cleaning up
// after a dead holder happen under it, so that two of them never
// interleave.
func (s *Sessions) Lock(ctx context.Context, name string) (unlock func(), err error) {
	return fsx.Lock(ctx, filepath.Join(s.dir, lockDir, s.id(name)+".lock"))
}

// Read returns the record of session name, or nil.
func (s *Sessions) Read(name string) *SessionRecord {
	var r SessionRecord
	if !readJSON(filepath.Join(s.Dir(name), "record.json"), &r) || r.Name != name {
		return nil
	}
	return &r
}

// Write stores r.
func (s *Sessions) Write(r *SessionRecord) error {
	return writeJSON(s.Dir(r.Name), "record.json", r)
}

// Remove forgets session name: its record and its log.
func (s *Sessions) Remove(name string) {
	os.RemoveAll(s.Dir(name))
}

// List returns every session's record, by name.
func (s *Sessions) List() []*SessionRecord {
	entries, _ := os.ReadDir(s.dir)
	var out []*SessionRecord
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		var r SessionRecord
		if readJSON(filepath.Join(s.dir, e.Name(), "record.json"), &r) && s.id(r.Name) == e.Name() {
			out = append(out, &r)
		}
	}
	slices.SortFunc(out, func(a, b *SessionRecord) int { return strings.Compare(a.Name, b.Name) })
	return out
}
