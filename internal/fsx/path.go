package fsx

import "path/filepath"

// Under is name, a file a command line names, relative to dir (the
// working directory the command line was given in) unless absolute.
func Under(dir, name string) string {
	if filepath.IsAbs(name) {
		return name
	}
	return filepath.Join(dir, name)
}
