package commands

import (
	"context"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/mcpc-dev/mcpc/client"
	"github.com/mcpc-dev/mcpc/format"
	"github.com/mcpc-dev/mcpc/internal/fail"
	redaction "github.com/mcpc-dev/mcpc/internal/redact"
	"github.com/mcpc-dev/mcpc/internal/textsafe"
)

// checkRow is one server of mcpc list --check.
type checkRow struct {
	Name      string `json:"name"`
	Transport string `json:"transport"`
	Status    string `json:"status"`
	Revision  string `json:"revision,omitempty"`
	// Tools is how many tools the server lists; absent when it was not
	// reached or declares no tools.
	Tools *int `json:"tools,omitempty"`
	// MS is how long the connect and the tool list took.
	MS *float64 `json:"ms,omitempty"`
	// Error is why the server is not ok, as the single-server commands
	// say it (no secret: the failure explainer's message).
	Error string `json:"error,omitempty"`
	// code and hint are the failure's, for the exit status and the hint.
	code fail.Code
	hint string
}

// checkOptions are what mcpc list --check checks: the servers picked
// (manyTargets), how many at once, and whether failures are also noted on
// stderr (text output; JSON has them in the rows).
type checkOptions struct {
	targets  []manyTarget
	parallel int
	text     bool
}

// listCheck picks the servers named (or all), then checks them with
// the globals of a many-server command.
func (st *state) listCheck(ctx context.Context, g *globals, names []string, parallel int) error {
	targets, err := st.manyTargets(g, names)
	if err != nil {
		return err
	}
	o := checkOptions{targets: targets, parallel: parallel, text: g.mode == format.ModeText}
	return runCheck(ctx, st.runIO(manyGlobals(g)), o)
}

// runCheck connects to every target (at most parallel at once), lists its
// tools, and prints a row per server. It never starts a login (the open
// path uses only a stored one) nor a server that is untrusted or disabled.
func runCheck(ctx context.Context, rio runIO, o checkOptions) error {
	rows := make([]checkRow, len(o.targets))
	for i, t := range o.targets {
		rows[i] = checkRow{Name: t.Name, Transport: t.transport, Status: t.Skip}
		if t.Named && t.Err != nil {
			e := asFailure(t.Err)
			rows[i].Error, rows[i].code, rows[i].hint = e.Msg, e.Code, e.Hint
		}
	}
	rio.each(ctx, o.targets, o.parallel, func(ctx context.Context, i int, start time.Time, sess session, err error) {
		r := &rows[i]
		if err == nil {
			r.Revision = sess.initializeResult().ProtocolVersion
			if caps := sess.initializeResult().Capabilities; caps != nil && caps.Tools != nil {
				var n int
				tools, lerr := sess.ListTools(ctx)
				n, err = len(tools), lerr
				r.Tools = &n
			}
		}
		ms := math.Round(float64(time.Since(start).Microseconds())/100) / 10
		r.MS = &ms
		if err != nil {
			e := asFailure(ctxErr(ctx, err))
			r.Status, r.Error, r.code, r.hint, r.Tools = client.CheckStatus(e), e.Msg, e.Code, e.Hint, nil
			return
		}
		r.Status = "ok"
	})
	// The rows go to stdout, which is not the redacting stderr: a server
	// that quotes a secret back in its error must not put it there.
	set := redaction.FromContext(ctx)
	for i := range rows {
		rows[i].Error, rows[i].hint = set.String(rows[i].Error), set.String(rows[i].hint)
	}
	if err := rio.print(format.KindServerCheck, map[string]any{"servers": rows}); err != nil {
		return err
	}
	return ctxErr(ctx, checkResult(rio.stderr, o.text, rows))
}

// checkResult notes each failure on stderr (in text mode: JSON has them
// in the rows) and returns the most severe, or nil when every server
// checked is ok.
func checkResult(stderr io.Writer, text bool, rows []checkRow) error {
	var worst *checkRow
	failed := 0
	for i := range rows {
		r := &rows[i]
		if r.code == "" {
			continue
		}
		failed++
		if text {
			textsafe.Note(stderr, "%s: %s", textsafe.OneLine(r.Name), textsafe.OneLine(r.Error))
		}
		if worst == nil || client.Severity(r.code) < client.Severity(worst.code) {
			worst = r
		}
	}
	if worst == nil {
		return nil
	}
	e := &fail.Error{Code: worst.code, Msg: fmt.Sprintf("%d of %d servers are not ok; the most severe: %s (%s)", failed, len(rows), worst.Name, worst.Status),
		Hint: "see the STATUS column (--json: each server's \"error\")"}
	if failed == 1 && worst.hint != "" {
		e.Hint = worst.hint
	}
	return e
}
