package client

import (
	"context"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/redact"
)

// Checks is a health check of several servers (mcpc list --check) as
// they answer: a row per target, in the targets' order, each written only
// by its own server's Measure (they run at once).
type Checks struct {
	rows      []CheckRow
	interrupt error
}

// NewChecks is a check of targets, none reached yet: a skipped target's
// row says why, a named one that cannot be used has failed already.
// interrupt is the context cause that means the user interrupted.
func NewChecks(targets []Target, interrupt error) *Checks {
	return &Checks{rows: CheckRows(targets, Unusable(targets)), interrupt: interrupt}
}

// Measure is what the check measures of target i, reached since start
// (init is its handshake's answer, s its session) or not (err): the
// revision the server speaks and, when it declares tools, how many it
// lists; a list that fails fails the server's check.
func (c *Checks) Measure(ctx context.Context, i int, start time.Time, init *mcp.InitializeResult, s ToolLister, err error) {
	r := &c.rows[i]
	if err == nil {
		r.Revision = init.ProtocolVersion
		if caps := init.Capabilities; caps != nil && caps.Tools != nil {
			tools, lerr := s.ListTools(ctx)
			n := len(tools)
			r.Tools, err = &n, lerr
		}
	}
	var failure *fail.Error
	if err != nil {
		failure = fail.From(fail.FromContext(ctx, err, c.interrupt))
	}
	r.Finish(start, failure)
}

// Done is the rows once every server was measured, the invocation's
// secrets hidden in them: they go to stdout (CheckResult is the verdict).
func (c *Checks) Done(ctx context.Context) []CheckRow {
	RedactCheckRows(c.rows, redact.FromContext(ctx))
	return c.rows
}
