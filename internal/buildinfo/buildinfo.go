// Package buildinfo says which mcpc this is: the version and commit the
// release stamps in, else what the Go toolchain recorded. --version prints
// it and the client names itself with it to servers.
package buildinfo

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
)

// Version and Commit are stamped in at link time by the release script
// (-ldflags "-X …"); a plain build falls back to the build info.
var (
	Version = ""
	Commit  = ""
)

// buildInfo is read once: debug.ReadBuildInfo parses the whole module list
// on every call, and --version asked for it twice on the start-up path.
var buildInfo = sync.OnceValues(debug.ReadBuildInfo)

// Name is mcpc's version: the stamped one, the module's, or "dev".
func Name() string {
	if Version != "" {
		return Version
	}
	if bi, ok := buildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// Revision is the VCS revision mcpc was built from, "unknown" when the
// build recorded none (go install from the module proxy, go run, tests).
func Revision() string {
	if Commit != "" {
		return Commit
	}
	rev, modified := "", false
	if bi, ok := buildInfo(); ok {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	if rev == "" {
		return "unknown"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if modified {
		rev += " (modified)"
	}
	return rev
}

// Text is what --version prints, enough to reproduce a bug report; mcp
// lists the protocol revisions spoken.
func Text(mcp []string) string {
	return fmt.Sprintf("mcpc %s\ncommit: %s\ngo: %s %s/%s\nmcp: %s\n",
		Name(), Revision(), runtime.Version(), runtime.GOOS, runtime.GOARCH, strings.Join(mcp, ", "))
}
