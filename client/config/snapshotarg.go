package config

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/fsx"
)

// SnapshotFiles says which of args, mcpc diff's, name a snapshot file
// (true) and which a server, by the rule its help states, before anything
// is read or started: a URL is a server, a name with a "/" a file; a bare
// name is a file when one of that name exists in cwd and a server when
// configured (the untrusted project file's included: using it then says
// why it cannot), refused when both or neither. load reads the
// configuration, only for a bare name.
func SnapshotFiles(args []string, cwd string, load func() (*Config, error)) ([]bool, error) {
	files := make([]bool, len(args))
	var cfg *Config
	for i, a := range args {
		switch {
		case IsURL(a):
			continue
		case strings.ContainsRune(a, '/') || strings.ContainsRune(a, filepath.Separator):
			files[i] = true
			continue
		}
		if cfg == nil {
			var err error
			if cfg, err = load(); err != nil {
				return nil, err
			}
		}
		_, err := os.Stat(fsx.Under(cwd, a))
		file := err == nil
		_, server := cfg.Servers[a]
		server = server || cfg.projectDefines(a)
		switch {
		case file && server:
			return nil, fail.New(fail.Usage, "write ./"+a+" for the file", "%q is both a file and a configured server", a)
		case !file && !server:
			return nil, fail.New(fail.Usage, "give a snapshot file (from mcpc snapshot), a configured server (mcpc list) or an https:// URL",
				"%q is neither a snapshot file nor a configured server", a)
		}
		files[i] = file
	}
	return files, nil
}
