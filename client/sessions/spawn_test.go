//go:build unix

package sessions

import (
	"context"
	"os/exec"
	"strings"
	"testing"

	"github.com/mcpc-dev/mcpc/internal/fail"
)

// A holder that gives no report while it still runs is ended by the
// starter's own SIGTERM: its end says nothing about why the report is
// missing, so the failure stays mcpc's (internal), not the server's.
func TestAwaitReportHolderStillRunning(t *testing.T) {
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	_, err := awaitReport(context.Background(), cmd.Process, strings.NewReader(""))
	if fail.CodeOf(err) != fail.Internal || err.Error() != "the session's holder ended without saying why" {
		t.Fatalf("got %v (%s), want internal: the session's holder ended without saying why", err, fail.CodeOf(err))
	}
}

// A holder's report whose failure has no message says nothing: the
// starter takes it for no report, as an attached invocation takes such a
// verdict for none, and does not print an empty error.
func TestAwaitReportFailureWithoutMessage(t *testing.T) {
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	rep, err := awaitReport(context.Background(), cmd.Process, strings.NewReader(`{"error":{"code":"auth_failed","hint":"log in"}}`))
	if fail.CodeOf(err) != fail.Internal || err.Error() != "the session's holder ended without saying why" || fail.As(err).Hint != "" {
		t.Fatalf("got %+v, %v (%s), want internal: the session's holder ended without saying why", rep, err, fail.CodeOf(err))
	}
}
