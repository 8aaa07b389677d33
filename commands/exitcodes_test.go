package commands

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpc-dev/mcpc/client"
)

func TestReport(t *testing.T) {
	for _, tc := range []struct {
		err    error
		code   int
		stderr string
	}{
		{toolError{}, 1, ""},
		{usagef("try this", "bad %s", "flag"), 2, "mcpc: error: bad flag\nmcpc: hint: try this\n"},
		{&client.SchemaError{Tool: "t", Msg: `missing required argument "x"`}, 2,
			"mcpc: error: arguments do not match the inputSchema of tool \"t\": missing required argument \"x\"\nmcpc: hint: fix the arguments, or pass --no-validate to let the server judge them\n"},
		{&client.Error{Kind: client.KindConfig, Msg: "unknown server \"x\""}, 3, "mcpc: error: unknown server \"x\"\n"},
		{&client.Error{Kind: client.KindAuth, Msg: "needs auth", Hint: "log in"}, 4, "mcpc: error: needs auth\nmcpc: hint: log in\n"},
		{&client.Error{Kind: client.KindConnection, Msg: "crashed"}, 5, "mcpc: error: crashed\n"},
		{fmt.Errorf("wrapped: %w", &client.Error{Kind: client.KindTimeout, Msg: "slow"}), 6, "mcpc: error: wrapped: slow\n"},
		{context.DeadlineExceeded, 6, "mcpc: error: timed out (--timeout)\n"},
		{&client.Error{Kind: client.KindRejected, Msg: "no such tool"}, 7, "mcpc: error: no such tool\n"},
		{errInterrupted, 130, "mcpc: error: interrupted\n"},
		{&client.Error{Kind: client.KindConnection, Msg: "evil \x1b[2J\nserver"}, 5, "mcpc: error: evil server\n"},
	} {
		var b strings.Builder
		if code := report(&b, tc.err, false); code != tc.code || b.String() != tc.stderr {
			t.Errorf("report(%v) = %d, %q; want %d, %q", tc.err, code, b.String(), tc.code, tc.stderr)
		}
	}
	var b strings.Builder
	report(&b, &client.Error{Kind: client.KindAuth, Msg: `server "s" requires authentication`, Hint: "run: mcpc login s"}, true)
	want := "mcpc: error: server \"s\" requires authentication\nmcpc: hint: run: mcpc login s\n" +
		`{"error":{"code":"auth_required","exit":4,"hint":"run: mcpc login s","message":"server \"s\" requires authentication"}}` + "\n"
	if b.String() != want {
		t.Errorf("JSON report = %q\nwant %q", b.String(), want)
	}
}
