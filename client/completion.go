package client

import (
	"maps"
	"slices"

	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/client/conn"
	"github.com/mcpc-dev/mcpc/client/state"
)

// Completion is what a shell completion reads of mcpc's configuration
// without contacting a server: the config as the line being completed
// names it (its --config files, then MCPC_CONFIG's), seen from Cwd.
type Completion struct {
	Getenv func(string) string
	Cwd    string
	Files  []string // the --config files on the line
}

// LoadOptions are the config sources the line names.
func (c Completion) LoadOptions() config.LoadOptions {
	files := append(slices.Clone(c.Files), config.EnvFiles(c.Getenv)...)
	return config.LoadOptions{Dirs: config.DirsFrom(c.Getenv), Cwd: c.Cwd, ConfigFiles: files}
}

// Servers are the configured servers sorted by name, each with the name
// of its transport; none when the config does not load.
func (c Completion) Servers() (names, transports []string) {
	cfg, err := config.Load(c.LoadOptions())
	if err != nil {
		return nil, nil
	}
	for _, name := range slices.Sorted(maps.Keys(cfg.Servers)) {
		names = append(names, name)
		transports = append(transports, TransportName(nil, cfg.Servers[name].Server))
	}
	return names, transports
}

// Tasks are the detached tasks remembered on server, a configured name or
// an HTTP server's URL, read from the state directory.
func (c Completion) Tasks(server string) []*state.TaskRecord {
	o := c.LoadOptions()
	cfg, err := config.Load(o)
	if err != nil {
		return nil
	}
	e, err := cfg.Resolve(server, config.AdHoc{})
	if err != nil || e.Server.URL == "" {
		return nil
	}
	return conn.RememberedTasks(e, state.NewMemo(o.Dirs.State, o.Dirs.Cache), c.Cwd)
}

// MaxMessage bounds each message from the configured server name when a
// completion asks it: limit, or the server's lower "maxMessage". ok is
// false for a name that is no configured server (a URL never is one).
func (c Completion) MaxMessage(name string, limit int64) (bound int64, ok bool) {
	cfg, err := config.Load(c.LoadOptions())
	if config.IsURL(name) || err != nil || cfg.Servers[name] == nil {
		return 0, false
	}
	if m := int64(cfg.Servers[name].Server.MaxMessage); m > 0 {
		return min(m, limit), true
	}
	return limit, true
}
