package commands

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpc-dev/mcpc/client"
	"github.com/mcpc-dev/mcpc/internal/fail"
)

func TestReport(t *testing.T) {
	for _, tc := range []struct {
		err    error
		code   int
		stderr string
	}{
		{client.ErrToolError, 1, ""},
		{usagef("try this", "bad %s", "flag"), 2, "mcpc: error: bad flag\nmcpc: hint: try this\n"},
		{&fail.Error{Code: fail.Config, Msg: "unknown server \"x\""}, 3, "mcpc: error: unknown server \"x\"\n"},
		{&fail.Error{Code: fail.AuthRequired, Msg: "needs auth", Hint: "log in"}, 4, "mcpc: error: needs auth\nmcpc: hint: log in\n"},
		{&fail.Error{Code: fail.Connection, Msg: "crashed"}, 5, "mcpc: error: crashed\n"},
		{fmt.Errorf("wrapped: %w", &fail.Error{Code: fail.Timeout, Msg: "slow"}), 6, "mcpc: error: wrapped: slow\n"},
		{context.DeadlineExceeded, 6, "mcpc: error: timed out: the invocation ran longer than --timeout\nmcpc: hint: raise --timeout\n"},
		{errors.New("something odd"), 5, "mcpc: error: something odd\n"},
		{&fail.Error{Code: fail.Rejected, Msg: "no such tool"}, 7, "mcpc: error: no such tool\n"},
		{errInterrupted, 130, "mcpc: error: interrupted\n"},
		{&fail.Error{Code: fail.Connection, Msg: "evil \x1b[2J\nserver"}, 5, "mcpc: error: evil server\n"},
	} {
		var b strings.Builder
		if code := report(&b, tc.err, false); code != tc.code || b.String() != tc.stderr {
			t.Errorf("report(%v) = %d, %q; want %d, %q", tc.err, code, b.String(), tc.code, tc.stderr)
		}
	}
	var b strings.Builder
	report(&b, &fail.Error{Code: fail.AuthRequired, Msg: `server "s" requires authentication`, Hint: "run: mcpc login s"}, true)
	want := "mcpc: error: server \"s\" requires authentication\nmcpc: hint: run: mcpc login s\n" +
		`{"error":{"code":"auth_required","exit":4,"hint":"run: mcpc login s","message":"server \"s\" requires authentication"}}` + "\n"
	if b.String() != want {
		t.Errorf("JSON report = %q\nwant %q", b.String(), want)
	}
}
