package format

import "testing"

// TestSessionText: session start's line says how the session ends: after
// its idle time, or when stopped, and with --shell when its shell exits.
func TestSessionText(t *testing.T) {
	s := Session{Name: "n", Server: "srv", Transport: "stdio", Revision: "2025-11-25", PID: 42, Idle: "15m"}
	if got, want := string(SessionText(s, false)), "session n started: srv (stdio, 2025-11-25), holder pid 42, ends after 15m idle\n"; got != want {
		t.Errorf("started:\n got %q\nwant %q", got, want)
	}
	s.Idle, s.Shell = "0s", 7
	if got, want := string(SessionText(s, true)), "session n already running: srv (stdio, 2025-11-25), holder pid 42, until stopped or when its shell (pid 7) exits\n"; got != want {
		t.Errorf("running:\n got %q\nwant %q", got, want)
	}
}

// TestSessionsText: one tab-separated line a session, the optional
// columns only when known, and why a session ended kept on its line.
func TestSessionsText(t *testing.T) {
	rows := []SessionRow{
		{Session: Session{Name: "a", Server: "srv", Revision: "2025-11-25", PID: 1}, Status: "running", Age: "1m0s",
			Requests: 3, IdleLeft: "14m", Memory: 3 << 19},
		{Session: Session{Name: "b", Server: "--stdio", Revision: "2026-07-28", PID: 2}, Status: "ended", Age: "2s",
			Ended: "the server exited\n\x1b[31mred"},
	}
	want := "a\trunning\tsrv\t2025-11-25\tpid 1\tage 1m0s\trequests 3\tidle left 14m\tmemory 1.5MiB\n" +
		"b\tended\t--stdio\t2026-07-28\tpid 2\tage 2s\trequests 0\tended: the server exited red\n"
	if got := string(SessionsText(rows)); got != want {
		t.Fatalf("SessionsText:\n got %q\nwant %q", got, want)
	}
}
