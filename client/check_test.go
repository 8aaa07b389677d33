package client

import (
	"testing"

	"github.com/mcpc-dev/mcpc/internal/fail"
)

func TestCheckStatus(t *testing.T) {
	for code, want := range map[fail.Code]string{
		fail.AuthRequired: "needs login", fail.AuthFailed: "auth failed", fail.Untrusted: "untrusted",
		fail.Timeout: "timeout", fail.ConnectTimeout: "timeout", fail.Connection: "unreachable",
		fail.ServerExited: "unreachable", fail.HTTPStatus: "unreachable", fail.Rejected: "rejected",
		fail.Usage: "unusable", fail.Config: "unusable",
	} {
		if got := CheckStatus(fail.New(code, "", "x")); got != want {
			t.Errorf("%s: status %q, want %q", code, got, want)
		}
	}
}

// A connection failure outranks a timeout, which outranks a login; a code
// outside the order (a tool error) ranks last.
func TestSeverity(t *testing.T) {
	order := []fail.Code{fail.Connection, fail.Timeout, fail.AuthRequired, fail.Rejected, fail.Usage, fail.Config, fail.ToolError}
	for i := 1; i < len(order); i++ {
		if Severity(order[i-1]) >= Severity(order[i]) {
			t.Errorf("Severity(%s) = %d, not below Severity(%s) = %d", order[i-1], Severity(order[i-1]), order[i], Severity(order[i]))
		}
	}
}
