package sessions

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/client/conn"
	"github.com/mcpc-dev/mcpc/client/state"
	"github.com/mcpc-dev/mcpc/internal/fail"
)

// testSessions is a store in a temporary directory whose notes go to the
// returned buffer.
func testSessions(t *testing.T) (*Sessions, *bytes.Buffer) {
	t.Helper()
	notes := new(bytes.Buffer)
	dir := t.TempDir()
	return &Sessions{Store: SessionStore(dir, ""), Cwd: dir, Notes: notes,
		Now: func() time.Time { return time.Date(2026, 1, 1, 0, 1, 0, 0, time.UTC) }}, notes
}

// goneRecord writes the record of a session whose holder is gone: its
// pid runs no process.
func goneRecord(t *testing.T, s *Sessions, name, ended string) *state.SessionRecord {
	t.Helper()
	rec := &state.SessionRecord{Name: name, Server: "--stdio", PID: 1 << 30, Idle: "0s", Ended: ended,
		Started: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), Socket: s.Store.Socket(name)}
	if err := s.Store.Write(rec); err != nil {
		t.Fatal(err)
	}
	return rec
}

// TestSessionLog: logs prints the older file then the current one, cut
// to its last bytes at a line's start with a note, escapes stripped; a
// missing session is named, with the sessions there are.
func TestSessionLog(t *testing.T) {
	s, notes := testSessions(t)
	goneRecord(t, s, "work", "")
	os.MkdirAll(filepath.Dir(s.Store.LogFile("work")), 0o700)
	os.WriteFile(s.Store.LogFile("work")+".1", []byte("old one\nold two\n"), 0o600)
	os.WriteFile(s.Store.LogFile("work"), []byte("new \x1b[31mred\x1b[0m\n"), 0o600)
	b, err := s.Log("work", 0)
	if want := "old one\nold two\nnew red\n"; err != nil || string(b) != want {
		t.Fatalf("Log = %q, %v; want %q", b, err, want)
	}
	b, err = s.Log("work", 21)
	if want := "new red\n"; err != nil || string(b) != want {
		t.Fatalf("Log(21) = %q, %v; want %q", b, err, want)
	}
	if want := "mcpc: note: the log's first 16 bytes are left out (--max-bytes 21); --max-bytes 0 prints all of it\n"; notes.String() != want {
		t.Fatalf("notes = %q, want %q", notes, want)
	}
	_, err = s.Log("wrok", 0)
	if e := fail.As(err); e == nil || e.Code != fail.Config || e.Msg != "no session wrok" || !strings.Contains(e.Hint, "work") {
		t.Fatalf("Log(missing) = %#v", err)
	}
}

// TestSessionLogRotates: past its bound the log is moved aside, one older
// file kept.
func TestSessionLogRotates(t *testing.T) {
	path := filepath.Join(t.TempDir(), "server.log")
	l, err := openSessionLog(path)
	if err != nil {
		t.Fatal(err)
	}
	chunk := bytes.Repeat([]byte("x"), sessionLogLimit/2+1)
	for range 3 {
		l.Write(chunk)
	}
	l.Close()
	for _, p := range []string{path, path + ".1"} {
		if fi, err := os.Stat(p); err != nil || fi.Size() != int64(len(chunk)) {
			t.Fatalf("%s: %v, %v; want %d bytes", p, fi, err, len(chunk))
		}
	}
}

// TestSessionStopGone: stopping a session whose holder is gone forgets
// it, saying why it had ended; a name with no session is a note.
func TestSessionStopGone(t *testing.T) {
	s, notes := testSessions(t)
	goneRecord(t, s, "a", "its server exited (status 3)")
	goneRecord(t, s, "b", "")
	if err := s.Stop(context.Background(), []string{"a", "b", "c"}); err != nil {
		t.Fatal(err)
	}
	want := "mcpc: note: session a had already ended (its server exited (status 3)): forgotten\n" +
		"mcpc: note: session b had already ended (its holder (pid 1073741824) was gone): forgotten\n" +
		"mcpc: note: no session c is running: nothing to stop\n"
	if notes.String() != want {
		t.Fatalf("notes =\n%s\nwant\n%s", notes, want)
	}
	if l := s.Store.List(); len(l) != 0 {
		t.Fatalf("records left: %v", l)
	}
	notes.Reset()
	s.Stop(context.Background(), nil)
	if want := "mcpc: note: no session is running: nothing to stop\n"; notes.String() != want {
		t.Fatalf("notes = %q", notes)
	}
}

// TestSessionListGone: a session whose holder does not answer is
// "gone", one that ended says why.
func TestSessionListGone(t *testing.T) {
	s, _ := testSessions(t)
	goneRecord(t, s, "a", "")
	goneRecord(t, s, "b", "it idled")
	got := s.List(context.Background())
	if len(got) != 2 || got[0].Status != "gone" || got[1].Status != "ended" || got[1].Ended != "it idled" || got[0].Age != "1m0s" {
		t.Fatalf("List = %+v", got)
	}
}

// TestSessionHeldEnded: an invocation naming a session that ended
// without being stopped is told so (exit 5), not given a fresh server;
// without a record there is no session to use.
func TestSessionHeldEnded(t *testing.T) {
	s, _ := testSessions(t)
	entry := &config.Entry{Name: "x", Server: &config.Server{Command: "--stdio"}}
	if h, err := s.Held(context.Background(), entry, conn.ConnectOptions{}, true); h != nil || err != nil {
		t.Fatalf("Held without a record = %v, %v", h, err)
	}
	goneRecord(t, s, "x", "its server exited")
	_, err := s.Held(context.Background(), entry, conn.ConnectOptions{}, true)
	if e := fail.As(err); e == nil || e.Code != fail.Connection || e.Msg != "session x ended: its server exited" {
		t.Fatalf("Held = %#v", err)
	}
	if e := s.AdhocEntry("x"); e == nil || e.Name != "x" || e.Server.Command != "--stdio" {
		t.Fatalf("AdhocEntry = %+v", e)
	}
}

// TestSessionSameCredentials: another invocation's credentials never
// reach a session; the parts that differ are named.
func TestSessionSameCredentials(t *testing.T) {
	s, _ := testSessions(t)
	rec := &state.SessionRecord{Name: "gh", Creds: map[string]string{"token": "h1", "env:A": "h2"}}
	entry := &config.Entry{Name: "gh", File: &config.File{}, Server: &config.Server{Command: "true"}}
	err := s.SameCredentials(entry, rec, conn.ConnectOptions{Getenv: func(string) string { return "" }})
	e := fail.As(err)
	if e == nil || e.Code != fail.Config || !strings.HasPrefix(e.Msg, "session gh holds its server with other credentials than this invocation's (") {
		t.Fatalf("SameCredentials = %#v", err)
	}
}

// TestStatelessNote: only a 2026-07-28 HTTP session is noted.
func TestStatelessNote(t *testing.T) {
	for _, c := range []struct {
		transport, revision string
		noted               bool
	}{{"http", "2026-07-28", true}, {"http", "2025-11-25", false}, {"stdio", "2026-07-28", false}} {
		got := StatelessNote(&state.SessionRecord{Name: "s", Transport: c.transport, Revision: c.revision})
		if (got != "") != c.noted {
			t.Errorf("%s %s: note %q", c.transport, c.revision, got)
		}
	}
}
