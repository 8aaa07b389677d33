package commands

import (
	"github.com/urfave/cli/v3"

	clientstate "github.com/mcpc-dev/mcpc/client/state"
)

// The many-server commands (mcpc list --check, mcpc grep) pick their
// servers with client.Connector.Targets and reach them with
// client.Connector.Each (runIO.each); what is here is their shared flag
// and globals.

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

// memo is what is remembered of the servers, for the transport listings
// show.
func (g *globals) memo() *clientstate.Memo { return clientstate.NewMemo(g.dirs.State, g.dirs.Cache) }
