package client

import (
	"context"
	"time"

	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/client/state"
	"github.com/mcpc-dev/mcpc/internal/fail"
)

// The many-server commands (mcpc list --check, mcpc grep) reach several
// servers in one invocation: the named ones, or every configured one.
// Connector.Targets and Connector.Each are their one way to pick the
// servers and to reach them, a few at a time, each through the same open
// path (and failure explainer) as a command that reaches one server.

// Target is one server of a many-server command (config.Target), with
// the transport listings show for it.
type Target struct {
	config.Target
	Transport string
}

// Targets picks the servers (config.Targets) and names each one's
// transport (memo: what is remembered of it); an unknown name fails here,
// before anything connects. Under --verbose (Trace) it says which keys of
// another host's each entry ignores.
func (c *Connector[S]) Targets(names []string, memo *state.Memo) ([]Target, error) {
	cfg, err := c.Config()
	if err != nil {
		return nil, err
	}
	targets, err := cfg.Targets(names, c.AdHoc)
	if err != nil {
		return nil, err
	}
	out := make([]Target, len(targets))
	for i, t := range targets {
		out[i].Target = t
		if t.Server != nil {
			out[i].Transport = TransportName(memo, t.Server)
		}
		if t.Entry != nil && c.Trace != nil {
			for _, n := range t.Entry.Server.IgnoredNotes() {
				c.Trace(n)
			}
		}
	}
	return out, nil
}

// Each reaches the targets that are to be started (EachServer), each
// through OpenEntry, what visit asks of it bounded by its connect timeout
// again.
func (c *Connector[S]) Each(ctx context.Context, targets []Target, parallel int, visit func(ctx context.Context, i int, start time.Time, sess S, err error)) {
	entries := make([]*config.Entry, len(targets))
	for i, t := range targets {
		entries[i] = t.Entry
	}
	open := func(ctx context.Context, e *config.Entry) (S, func(), time.Duration, error) {
		sess, closeFn, err := c.OpenEntry(ctx, e)
		if err != nil {
			return sess, nil, 0, err
		}
		return sess, closeFn, c.Options(e).ConnectTimeout, nil
	}
	EachServer(ctx, entries, parallel, open, visit)
}

// MostSevere is the index of the most severe of failures (by Severity,
// the first of its rank), or -1 when none failed (nil entries did not).
func MostSevere(failures []*fail.Error) int {
	worst := -1
	for i, e := range failures {
		if e != nil && (worst < 0 || Severity(e.Code) < Severity(failures[worst].Code)) {
			worst = i
		}
	}
	return worst
}

// Unusable is, for each target named on the command line that cannot be
// used, why (as the single-server commands say it); nil for the others.
func Unusable(targets []Target) []*fail.Error {
	out := make([]*fail.Error, len(targets))
	for i, t := range targets {
		if t.Named && t.Err != nil {
			out[i] = fail.From(t.Err)
		}
	}
	return out
}
