package commands

import (
	"path/filepath"
	"strconv"
	"time"
)

// keepAliveArgs is the command line of the holder a keepAlive entry
// starts: session start of the entry, with what decides which entry that
// is and how it is reached (MCPC_CONFIG and the working directory reach
// the holder as they are).
func (st *state) keepAliveArgs(g *globals, name string, idle time.Duration) []string {
	args := []string{st.argv[0], "session", "start", "--idle", idle.String()}
	// g.configFiles are the --config flags, then MCPC_CONFIG's files.
	fromEnv := 0
	for _, p := range filepath.SplitList(st.env.Getenv("MCPC_CONFIG")) {
		if p != "" {
			fromEnv++
		}
	}
	for _, f := range g.configFiles[:len(g.configFiles)-fromEnv] {
		args = append(args, "--config", f)
	}
	if p := g.adhoc.Protocol; p != "" {
		args = append(args, "--protocol", p)
	}
	if g.connectTimeoutSet {
		args = append(args, "--connect-timeout", g.connectTimeout.String())
	}
	if g.probeTimeout > 0 {
		args = append(args, "--probe-timeout", g.probeTimeout.String())
	}
	if g.maxMessage > 0 {
		args = append(args, "--max-message", strconv.FormatInt(g.maxMessage, 10))
	}
	return append(args, name) // a server name never begins with "-"
}
