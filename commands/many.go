package commands

import (
	"context"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/mcpc-dev/mcpc/client"
	"github.com/mcpc-dev/mcpc/client/config"
	clientstate "github.com/mcpc-dev/mcpc/client/state"
)

// The many-server commands (mcpc list --check, mcpc grep) reach several
// servers in one invocation: the named ones, or every configured one. This
// is their one way to pick the servers and to reach them, a few at a time,
// each through the same open path (and failure explainer) as a command
// that reaches one server.

// defaultParallel is how many servers are reached at once without
// --parallel: enough that a dead server (its connect timeout) does not
// hold up the rest, few enough that a laptop is not flooded with npx
// start-ups.
const defaultParallel = 4

func parallelFlag() cli.Flag {
	return &cli.IntFlag{Name: "parallel", Value: defaultParallel, Usage: "reach at most `N` servers at once"}
}

// readParallel checks --parallel before anything connects.
func readParallel(cmd *cli.Command) (int, error) {
	n := cmd.Int("parallel")
	if n < 1 {
		return 0, usagef("", "--parallel must be at least 1, not %d", n)
	}
	return n, nil
}

// manyTarget is one server of a many-server command (config.Target),
// with the transport listings show for it.
type manyTarget struct {
	config.Target
	transport string
}

// manyTargets picks the servers (config.Targets) and names each one's
// transport; an unknown name fails here, before anything connects.
func (st *state) manyTargets(g *globals, names []string) ([]manyTarget, error) {
	cfg, err := g.loadConfig()
	if err != nil {
		return nil, err
	}
	targets, err := cfg.Targets(names, g.adhoc)
	if err != nil {
		return nil, err
	}
	memo := clientstate.NewMemo(g.dirs.State, g.dirs.Cache)
	out := make([]manyTarget, len(targets))
	for i, t := range targets {
		out[i].Target = t
		if t.Server != nil {
			out[i].transport = client.TransportName(memo, t.Server)
		}
		if t.Entry != nil {
			traceIgnored(st.verboseFunc(g), t.Entry.Server)
		}
	}
	return out, nil
}

// manyGlobals are the globals for reaching several servers at once: a
// stdio server's stderr is hidden unless --server-stderr (or the entry)
// says otherwise, as several servers' start-up chatter would interleave
// (a server that dies still has its last words in the failure).
func manyGlobals(g *globals) *globals {
	c := *g
	if !c.serverStderrSet {
		c.serverStderr = "hide"
	}
	return &c
}

// eachServer reaches the targets that are to be started
// (client.EachServer), each through the open path of a command that
// reaches one server, what visit asks of it bounded by its connect
// timeout again.
func (st *state) eachServer(ctx context.Context, g *globals, targets []manyTarget, parallel int, visit visitFunc) {
	entries := make([]*config.Entry, len(targets))
	for i, t := range targets {
		entries[i] = t.Entry
	}
	open := func(ctx context.Context, e *config.Entry) (session, func(), time.Duration, error) {
		sess, closeFn, err := st.connector(g).OpenEntry(ctx, e)
		if err != nil {
			return nil, nil, 0, err
		}
		return sess, closeFn, st.sessionOptions(g, e).ConnectTimeout, nil
	}
	client.EachServer(ctx, entries, parallel, open, visit)
}
