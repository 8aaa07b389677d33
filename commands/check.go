package commands

import (
	"context"
	"io"
	"time"

	"github.com/mcpc-dev/mcpc/client"
	"github.com/mcpc-dev/mcpc/format"
	"github.com/mcpc-dev/mcpc/internal/fail"
	redaction "github.com/mcpc-dev/mcpc/internal/redact"
)

// checkOptions are what mcpc list --check checks: the servers picked
// (client.Connector.Targets), how many at once, and whether failures are
// also noted on stderr (text output; JSON has them in the rows).
type checkOptions struct {
	targets  []client.Target
	parallel int
	text     bool
}

// runCheck connects to every target (at most parallel at once), lists its
// tools, and prints a row per server. It never starts a login (the open
// path uses only a stored one) nor a server that is untrusted or disabled.
func runCheck(ctx context.Context, rio runIO, o checkOptions) error {
	rows := client.CheckRows(o.targets, unusable(o.targets))
	rio.each(ctx, o.targets, o.parallel, func(ctx context.Context, i int, start time.Time, sess session, err error) {
		r := &rows[i]
		if err == nil {
			r.Revision = sess.initializeResult().ProtocolVersion
			if caps := sess.initializeResult().Capabilities; caps != nil && caps.Tools != nil {
				tools, lerr := sess.ListTools(ctx)
				n := len(tools)
				r.Tools, err = &n, lerr
			}
		}
		var failure *fail.Error
		if err != nil {
			failure = asFailure(ctxErr(ctx, err))
		}
		r.Finish(start, failure)
	})
	client.RedactCheckRows(rows, redaction.FromContext(ctx))
	if err := rio.print(format.KindServerCheck, map[string]any{"servers": rows}); err != nil {
		return err
	}
	var notes io.Writer
	if o.text {
		notes = rio.stderr
	}
	return ctxErr(ctx, client.CheckResult(notes, rows))
}
