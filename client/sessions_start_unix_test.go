//go:build unix

package client

import (
	"bytes"
	"context"
	"os"
	"testing"

	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/client/conn"
	"github.com/mcpc-dev/mcpc/client/sessions"
	"github.com/mcpc-dev/mcpc/client/state"
	"github.com/mcpc-dev/mcpc/internal/fail"
)

// TestStartSessionRunning: session start of a session whose holder
// answers starts nothing: for the same target the session is found
// running, with a note; for another target it is refused (exit 2),
// naming what it holds and how to free the name.
func TestStartSessionRunning(t *testing.T) {
	var dialed []conn.ConnectOptions
	c := testConnector(t, &config.Config{Servers: map[string]*config.Entry{}}, &dialed)
	c.AdHoc = config.AdHoc{Stdio: "cmd arg"}
	entry, err := c.Resolve("")
	if err != nil {
		t.Fatal(err)
	}
	sock, err := c.Sessions.Store.PrepareSocket("mine")
	if err != nil {
		t.Fatal(err)
	}
	answering(t, sock)
	err = c.Sessions.Store.Write(&state.SessionRecord{Name: "mine", Server: sessions.SessionServerName(&config.Entry{Server: &config.Server{}}), Socket: sock, PID: os.Getpid(),
		Idle: "0s", Entry: sessions.EntryIdentity(entry, "mine")})
	if err != nil {
		t.Fatal(err)
	}
	rec, running, err := c.StartSession(context.Background(), StartOptions{Name: "mine"})
	if err != nil || !running || rec.Name != "mine" {
		t.Fatalf("StartSession = %+v, %v, %v; want the running session", rec, running, err)
	}
	notes := c.Sessions.Notes.(*bytes.Buffer)
	if got, want := notes.String(), "mcpc: note: session mine is already running\n"; got != want {
		t.Fatalf("notes = %q, want %q", got, want)
	}
	c.AdHoc = config.AdHoc{Stdio: "another"}
	_, _, err = c.StartSession(context.Background(), StartOptions{Name: "mine"})
	if want := "session mine is running and holds another target (--stdio)"; fail.CodeOf(err) != fail.Usage || err.Error() != want {
		t.Fatalf("StartSession(another) = %v, want a usage error %q", err, want)
	}
	if f := fail.As(err); f.Hint != "stop it first ('mcpc session stop mine'), or choose another --name" {
		t.Fatalf("hint = %q", f.Hint)
	}
	if len(dialed) != 0 {
		t.Fatalf("session start dialled the server %d times", len(dialed))
	}
}
