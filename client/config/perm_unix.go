//go:build unix

package config

import (
	"os"

	"github.com/mcpc-dev/mcpc/internal/fsx"
)

// safeConfigFile refuses a config file others can change: see permCheck.
func safeConfigFile(path string) error {
	return permCheck{stat: os.Stat, lstat: os.Lstat, owner: fsx.Owner, euid: os.Geteuid()}.safeConfig(path)
}
