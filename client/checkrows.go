package client

import (
	"fmt"
	"io"
	"math"
	"time"

	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/redact"
	"github.com/mcpc-dev/mcpc/internal/textsafe"
)

// CheckRow is one server of mcpc list --check.
type CheckRow struct {
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
	// failure is the failure's code and hint, for the exit status and the
	// hint.
	failure *fail.Error
}

// CheckRows are the rows of a check of targets before any is reached: a
// skipped target's status, a named one that cannot be used its failure
// (failures[i], from the target's Err).
func CheckRows(targets []Target, failures []*fail.Error) []CheckRow {
	rows := make([]CheckRow, len(targets))
	for i, t := range targets {
		rows[i] = CheckRow{Name: t.Name, Transport: t.Transport, Status: t.Skip}
		if e := failures[i]; e != nil {
			rows[i].Error, rows[i].failure = e.Msg, e
		}
	}
	return rows
}

// Finish records how the check of a server that was reached (or not,
// failure) went, since start: ok, or the status its failure says.
func (r *CheckRow) Finish(start time.Time, failure *fail.Error) {
	ms := math.Round(float64(time.Since(start).Microseconds())/100) / 10
	r.MS = &ms
	if failure != nil {
		r.Status, r.Error, r.failure, r.Tools = CheckStatus(failure), failure.Msg, failure, nil
		return
	}
	r.Status = "ok"
}

// RedactCheckRows hides the invocation's secrets in each row's error and hint: the
// rows go to stdout, which is not the redacting stderr, and a server that
// quotes a secret back in its error must not put it there.
func RedactCheckRows(rows []CheckRow, set *redact.Set) {
	for i := range rows {
		r := &rows[i]
		r.Error = set.String(r.Error)
		if r.failure != nil {
			e := *r.failure
			e.Hint = set.String(e.Hint)
			r.failure = &e
		}
	}
}

// CheckResult notes each failure on notes (nil: not at all, as JSON has
// them in the rows) and returns the most severe, or nil when every server
// checked is ok.
func CheckResult(notes io.Writer, rows []CheckRow) error {
	failures := make([]*fail.Error, len(rows))
	failed := 0
	for i, r := range rows {
		if r.failure == nil {
			continue
		}
		failures[i] = r.failure
		failed++
		if notes != nil {
			textsafe.Note(notes, "%s: %s", textsafe.OneLine(r.Name), textsafe.OneLine(r.Error))
		}
	}
	w := MostSevere(failures)
	if w < 0 {
		return nil
	}
	worst := rows[w]
	e := &fail.Error{Code: worst.failure.Code, Msg: fmt.Sprintf("%d of %d servers are not ok; the most severe: %s (%s)", failed, len(rows), worst.Name, worst.Status),
		Hint: "see the STATUS column (--json: each server's \"error\")"}
	if failed == 1 && worst.failure.Hint != "" {
		e.Hint = worst.failure.Hint
	}
	return e
}
