package client

import (
	"context"
	crand "crypto/rand"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tidwall/gjson"

	"github.com/mcpc-dev/mcpc/internal/rawmsg"
	"github.com/mcpc-dev/mcpc/internal/textsafe"
	"github.com/mcpc-dev/mcpc/internal/units"
)

// toolFailureKey is SEP-3313's _meta key on a failed CallToolResult. The
// key is the gate: a server that does not speak the SEP never sends it.
const toolFailureKey = "io.modelcontextprotocol/toolFailure"

// ToolFailure is SEP-3313's classification of a failed result, as a
// server sent it: its strings one line each and bounded.
type ToolFailure struct {
	Class, Code, CorrelationID string
	Retryable                  bool
	// NotBefore is retryNotBefore, zero when absent.
	NotBefore time.Time
}

// failureTextMax bounds each string of a failure mcpc shows.
const failureTextMax = 200

// ToolFailureOf reads the classification of a result with isError;
// nil when it has none, or none mcpc can use (no class).
func ToolFailureOf(raw []byte) *ToolFailure {
	res := rawmsg.View(raw)
	if !res.Get("isError").Bool() {
		return nil
	}
	v := res.Get("_meta." + gjson.Escape(toolFailureKey))
	if !v.IsObject() || v.Get("class").Type != gjson.String {
		return nil
	}
	f := &ToolFailure{Class: shortText(v.Get("class")), Code: shortText(v.Get("code")), CorrelationID: shortText(v.Get("correlationId"))}
	// SEP-3313: retryable is meaningful only for class reliability.
	f.Retryable = f.Class == "reliability" && v.Get("retryable").Type == gjson.True
	if n := v.Get("retryNotBefore"); n.Type == gjson.Number && n.Float() > 0 && n.Float() < 1e15 {
		f.NotBefore = time.UnixMilli(int64(n.Float()))
	}
	return f
}

func shortText(v gjson.Result) string {
	if v.Type != gjson.String {
		return ""
	}
	s := textsafe.OneLine(v.String())
	if len(s) > failureTextMax {
		s = strings.ToValidUTF8(s[:failureTextMax], "") + "…"
	}
	return s
}

// String is the failure as a note shows it.
func (f *ToolFailure) String() string {
	parts := []string{"class " + f.Class}
	if f.Code != "" {
		parts = append(parts, "code "+f.Code)
	}
	if f.Retryable {
		parts = append(parts, "retryable")
	}
	if f.CorrelationID != "" {
		parts = append(parts, "correlationId "+f.CorrelationID)
	}
	return strings.Join(parts, ", ")
}

// maxToolRetryWait bounds how long mcpc waits before retrying a failed
// tool, as a rate limit's wait is bounded.
const maxToolRetryWait = 30 * time.Second

// retryWait says whether a failed call of tool may be retried, and after
// how long. SEP-3313: only a retryable failure of class reliability, only
// of a tool annotated idempotentHint, never before retryNotBefore; and
// mcpc's own bounds: a wait of at most maxToolRetryWait that ends before
// ctx's deadline. Without retryNotBefore, a backoff that doubles from
// 250ms per attempt (attempt counts from 1), with jitter.
func (f *ToolFailure) retryWait(ctx context.Context, tool *mcp.Tool, attempt int) (time.Duration, string) {
	switch {
	case !f.Retryable:
		return 0, "the server did not mark it retryable"
	case tool == nil || tool.Annotations == nil || !tool.Annotations.IdempotentHint:
		return 0, "the tool is not annotated idempotentHint"
	}
	wait := min(250*time.Millisecond<<min(attempt-1, 5), 5*time.Second)
	if !f.NotBefore.IsZero() {
		wait = max(time.Until(f.NotBefore), 0)
	}
	if wait > maxToolRetryWait {
		return 0, fmt.Sprintf("it asks to wait %s, more than the %s mcpc waits", units.DurationText(wait.Round(time.Second)), units.DurationText(maxToolRetryWait))
	}
	wait += rand.N(wait/10 + 10*time.Millisecond)
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) <= wait {
		return 0, "the wait would pass --timeout"
	}
	return wait, ""
}

// newIdempotencyKey is a random key (a UUID v4 in form), for the attempts
// of one call made with --retry and no --idempotency-key.
func newIdempotencyKey() string {
	var b [16]byte
	_, _ = crand.Read(b[:])
	b[6], b[8] = b[6]&0x0f|0x40, b[8]&0x3f|0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

// noteFailure notes a failed result's classification on w, when it has one.
func noteFailure(w io.Writer, tool string, raw []byte) *ToolFailure {
	f := ToolFailureOf(raw)
	if f != nil {
		textsafe.Note(w, "tool %q failed: %s", tool, f)
	}
	return f
}
