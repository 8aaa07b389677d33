package termui

import (
	"bytes"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func testTerm(stderr *bytes.Buffer, tty bool) ProgressTerm {
	return ProgressTerm{Stderr: stderr, TTY: tty, Getenv: func(k string) string {
		if k == "TERM" {
			return "dumb"
		}
		return ""
	}, Width: 80, Now: func() time.Time { return time.Unix(0, 0) }}
}

func TestProgressDisplayShowsNothingUnlessAskedOrLive(t *testing.T) {
	var d ProgressDisplay
	var stderr bytes.Buffer
	stop := d.Start(testTerm(&stderr, true), false) // a terminal without cursor control
	d.Notify(&mcp.ProgressNotificationParams{Message: "half", Progress: 1, Total: 2})
	d.TaskStatus("working", "")
	d.Pause()()
	stop()
	if stderr.Len() != 0 {
		t.Fatalf("stderr = %q, want nothing", stderr.String())
	}
}

func TestProgressDisplayAskedShowsEachNotificationUntilStopped(t *testing.T) {
	var d ProgressDisplay
	var stderr bytes.Buffer
	stop := d.Start(testTerm(&stderr, false), true)
	d.Notify(&mcp.ProgressNotificationParams{Message: "half", Progress: 1, Total: 2})
	d.TaskStatus("working", "fetching")
	d.TaskStatus("working", "fetching")
	stop()
	d.Notify(&mcp.ProgressNotificationParams{Message: "late"})
	// A status the line shows already is not repeated.
	want := "mcpc: progress: half 1/2 (50%) 0s\nmcpc: progress: fetching 0s\n"
	if stderr.String() != want {
		t.Fatalf("stderr = %q, want %q", stderr.String(), want)
	}
}
