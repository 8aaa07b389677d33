package commands

import (
	"context"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/mcpc-dev/mcpc/client"
	"github.com/mcpc-dev/mcpc/client/config"
	clientstate "github.com/mcpc-dev/mcpc/client/state"
	"github.com/mcpc-dev/mcpc/internal/fail"
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

// manyTarget is one server of a many-server command: its entry, or why it
// is not started (skip: "untrusted", "disabled", "unusable"; err says it as
// a failure).
type manyTarget struct {
	name      string
	transport string
	entry     *config.Entry
	skip      string
	err       error
	// named says the user asked for this server: one that is not started
	// is then a failure, not only a row.
	named bool
}

// manyTargets picks the servers: with names, those (a URL too); with
// --stdio, that command; else every configured server, sorted by name,
// and those of an untrusted project file, which are listed, never started.
// An unknown name fails here, before anything connects.
func (st *state) manyTargets(g *globals, names []string) ([]manyTarget, error) {
	cfg, err := g.loadConfig()
	if err != nil {
		return nil, err
	}
	memo := clientstate.NewMemo(g.dirs.State, g.dirs.Cache)
	target := func(name string, named bool) (manyTarget, error) {
		t := manyTarget{name: name, named: named}
		e, err := cfg.Resolve(name, g.adhoc)
		switch {
		case err == nil:
			t.entry, t.name = e, e.ShownName()
			t.transport = client.TransportName(memo, e.Server)
			st.traceIgnored(g, e.Server)
			return t, nil
		case fail.CodeOf(err) == fail.Untrusted:
			t.skip, t.err = "untrusted", err
			if p := cfg.Project; p != nil && p.Servers[name] != nil {
				t.transport = client.TransportName(memo, p.Servers[name])
			}
			return t, nil
		}
		if known := cfg.Servers[name]; known != nil {
			t.transport = client.TransportName(memo, known.Server)
			t.skip, t.err = "unusable", err
			if known.Server.Disabled {
				t.skip = "disabled"
			}
			return t, nil
		}
		return t, err
	}
	var out []manyTarget
	switch {
	case g.adhoc.IsStdio():
		if len(names) > 0 {
			return nil, usagef("give either server names or a --stdio command, not both", "unexpected argument %q with --stdio", names[0])
		}
		t, err := target("", true)
		return []manyTarget{t}, err
	case len(names) > 0:
		seen := map[string]bool{}
		for _, n := range names {
			if seen[n] {
				continue
			}
			seen[n] = true
			t, err := target(n, true)
			if err != nil {
				return nil, err
			}
			out = append(out, t)
		}
		return out, nil
	}
	all := slices.Collect(maps.Keys(cfg.Servers))
	if p := cfg.Project; p != nil && cfg.ProjectTrust != config.Trusted && p.Err == nil {
		for _, n := range p.Names {
			if cfg.Servers[n] == nil {
				all = append(all, n)
			}
		}
	}
	slices.Sort(all)
	for _, n := range all {
		t, err := target(n, false)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
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

// eachServer runs visit for every target that is to be started, at most
// parallel at a time, and returns when all are done. visit gets the
// session open and when its connect began; a target that could not be reached gets its failure
// instead, in err. A server's connect is bounded by its connect timeout
// (the open path's own bound), what visit asks of it after that by the
// same duration again, so one slow server costs at most that much.
func (st *state) eachServer(ctx context.Context, g *globals, targets []manyTarget, parallel int,
	visit func(ctx context.Context, i int, start time.Time, sess session, err error)) {
	sem := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	for i, t := range targets {
		if t.entry == nil {
			continue
		}
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			start := time.Now()
			if ctx.Err() != nil {
				visit(ctx, i, start, nil, ctx.Err())
				return
			}
			sess, closeFn, err := st.openEntry(ctx, g, t.entry)
			if err != nil {
				visit(ctx, i, start, nil, err)
				return
			}
			defer closeFn()
			vctx, cancel := context.WithTimeout(ctx, st.sessionOptions(g, t.entry).ConnectTimeout)
			defer cancel()
			visit(vctx, i, start, sess, nil)
		})
	}
	wg.Wait()
}
