package state

import (
	"path/filepath"
	"time"
)

// Cursors keeps the positions mcpc watch ... events --since-last got to:
// per server and event type, the last cursor the server gave (the events
// extension's cursors are opaque positions a client persists), so a job
// that runs every ten minutes sees each event once. One private file a
// pair, in the state dir, written atomically.
type Cursors struct{ dir string }

// NewCursors is the cursors kept under stateDir.
func NewCursors(stateDir string) *Cursors {
	return &Cursors{dir: filepath.Join(stateDir, "events")}
}

// cursorRecord is one file: what it is for (so the directory can be read
// by a person) and the cursor.
type cursorRecord struct {
	Server string    `json:"server"`
	Event  string    `json:"event"`
	Cursor string    `json:"cursor"`
	At     time.Time `json:"at"`
}

// maxCursor bounds a cursor kept: it is a server's string, sent back.
const maxCursor = 4096

func (c *Cursors) path(server, event string) string {
	return filepath.Join(c.dir, HashKey("events", server, event)+".json")
}

// Load is the cursor kept for server's event type, if any.
func (c *Cursors) Load(server, event string) (string, bool) {
	var r cursorRecord
	if !readJSON(c.path(server, event), &r) || r.Server != server || r.Event != event || r.Cursor == "" || len(r.Cursor) > maxCursor {
		return "", false
	}
	return r.Cursor, true
}

// Save keeps cursor for server's event type; "" forgets it (a server
// whose events cannot be replayed gives none).
func (c *Cursors) Save(server, event, cursor string, now time.Time) error {
	if cursor == "" || len(cursor) > maxCursor {
		return nil
	}
	return writeJSON(c.dir, filepath.Base(c.path(server, event)), cursorRecord{Server: server, Event: event, Cursor: cursor, At: now.UTC()})
}
