package config

import "path/filepath"

// EnvFiles are the config files MCPC_CONFIG names (a list like PATH's),
// read after the --config flags.
func EnvFiles(getenv func(string) string) []string {
	var files []string
	for _, p := range filepath.SplitList(getenv("MCPC_CONFIG")) {
		if p != "" {
			files = append(files, p)
		}
	}
	return files
}
