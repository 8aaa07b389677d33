package report

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpc-dev/mcpc/internal/fail"
)

func TestPrint(t *testing.T) {
	for _, tc := range []struct {
		err    error
		code   int
		stderr string
	}{
		{&fail.Error{Code: fail.ToolError, Msg: "isError"}, 1, ""},
		{&fail.Error{Code: fail.Drift, Msg: "breaking"}, 1, ""},
		{fail.New(fail.Usage, "try this", "bad %s", "flag"), 2, "mcpc: error: bad flag\nmcpc: hint: try this\n"},
		{&fail.Error{Code: fail.Config, Msg: "unknown server \"x\""}, 3, "mcpc: error: unknown server \"x\"\n"},
		{&fail.Error{Code: fail.AuthRequired, Msg: "needs auth", Hint: "log in"}, 4, "mcpc: error: needs auth\nmcpc: hint: log in\n"},
		{&fail.Error{Code: fail.Connection, Msg: "crashed"}, 5, "mcpc: error: crashed\n"},
		{fmt.Errorf("wrapped: %w", &fail.Error{Code: fail.Timeout, Msg: "slow"}), 6, "mcpc: error: wrapped: slow\n"},
		{context.DeadlineExceeded, 6, "mcpc: error: timed out: the invocation ran longer than --timeout\nmcpc: hint: raise --timeout\n"},
		{errors.New("something odd"), 5, "mcpc: error: something odd\n"},
		{&fail.Error{Code: fail.Rejected, Msg: "no such tool"}, 7, "mcpc: error: no such tool\n"},
		{&fail.Error{Code: fail.Interrupted, Msg: "interrupted"}, 130, "mcpc: error: interrupted\n"},
		{&fail.Error{Code: fail.Connection, Msg: "evil \x1b[2J\nserver"}, 5, "mcpc: error: evil server\n"},
		{nil, 0, ""},
	} {
		var b strings.Builder
		if code := Print(&b, tc.err, false); code != tc.code || b.String() != tc.stderr {
			t.Errorf("Print(%v) = %d, %q; want %d, %q", tc.err, code, b.String(), tc.code, tc.stderr)
		}
	}
	var b strings.Builder
	Print(&b, &fail.Error{Code: fail.AuthRequired, Msg: `server "s" requires authentication`, Hint: "run: mcpc login s"}, true)
	want := "mcpc: error: server \"s\" requires authentication\nmcpc: hint: run: mcpc login s\n" +
		`{"error":{"code":"auth_required","exit":4,"hint":"run: mcpc login s","message":"server \"s\" requires authentication"}}` + "\n"
	if b.String() != want {
		t.Errorf("JSON report = %q\nwant %q", b.String(), want)
	}
}

// TestObjectOneLine: the JSON object never carries a server's escapes or
// line breaks.
func TestObjectOneLine(t *testing.T) {
	got := string(Object(&fail.Error{Code: fail.Rejected, Msg: "a\x1b]0;t\x07\nb", Hint: "c\r\nd"}))
	want := `{"error":{"code":"rejected","exit":7,"hint":"c d","message":"a b"}}`
	if got != want {
		t.Errorf("Object = %s, want %s", got, want)
	}
}
