package commands

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/mcpc-dev/mcpc/client/config"
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

func version() string {
	if Version != "" {
		return Version
	}
	if bi, ok := buildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// commit is the VCS revision mcpc was built from, "unknown" when the build
// recorded none (go install from the module proxy, go run, tests).
func commit() string {
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

// printVersion answers --version: enough to reproduce a bug report.
func printVersion(w io.Writer) error {
	var revs []string
	for _, p := range config.Protocols {
		if p != "auto" {
			revs = append(revs, p)
		}
	}
	_, err := fmt.Fprintf(w, "mcpc %s\ncommit: %s\ngo: %s %s/%s\nmcp: %s\n",
		version(), commit(), runtime.Version(), runtime.GOOS, runtime.GOARCH, strings.Join(revs, ", "))
	return err
}
