//go:build unix

package testscripts

import (
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// maxOwnInitAllocs bounds the allocations of mcpc's own packages' init in
// `mcpc --version` (80 when it was set). A regexp compiled at package level
// alone is hundreds (client/state's session-name check was 861): what an
// invocation may not use is built on first use (sync.OnceValue), so every
// short invocation does not pay for it.
const maxOwnInitAllocs = 100

// TestInitAllocations runs the built binary with GODEBUG=inittrace=1 and
// fails when mcpc's own packages allocate more than maxOwnInitAllocs at
// init. Third-party inits are logged, not bounded: the SDK's (encoding/gob,
// jsonschema-go, oauthex) cannot be left out while its mcp package is
// linked.
func TestInitAllocations(t *testing.T) {
	cmd := exec.Command(filepath.Join(binDir, "mcpc"), "--version")
	cmd.Env = []string{"HOME=" + t.TempDir(), "GODEBUG=inittrace=1"}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("mcpc --version: %v\n%s", err, out)
	}
	own, lines := 0, 0
	for _, l := range strings.Split(string(out), "\n") {
		// init PKG @T ms, C ms clock, B bytes, A allocs
		f := strings.Fields(l)
		if len(f) != 11 || f[0] != "init" || f[10] != "allocs" {
			continue
		}
		lines++
		allocs, err := strconv.Atoi(f[9])
		if err != nil {
			t.Fatalf("unexpected inittrace line %q", l)
		}
		if strings.HasPrefix(f[1], "github.com/mcpc-dev/mcpc/") {
			own += allocs
			t.Logf("own:   %s", l)
		} else if allocs > 0 && strings.Contains(strings.SplitN(f[1], "/", 2)[0], ".") {
			t.Logf("other: %s", l)
		}
	}
	if lines == 0 {
		t.Fatalf("no inittrace lines in the output of mcpc --version:\n%s", out)
	}
	if own > maxOwnInitAllocs {
		t.Errorf("mcpc's own packages allocate %d times at init (at most %d): make what --version does not use lazy (sync.OnceValue)", own, maxOwnInitAllocs)
	}
}
