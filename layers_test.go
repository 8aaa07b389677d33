package main

import (
	"os/exec"
	"strings"
	"testing"
)

// leaves stands, in a layer's list, for every leaf: a package under
// internal/ that imports no package of this module.
const leaves = "(leaves)"

// layers says which packages of the module each package may import (its
// non-test imports), so that arrows only run down and a leaf stays a leaf.
// A package is placed by the first row whose pattern matches it ("x/..."
// is x's subtree); one that matches none fails the test, so a new package
// is placed on purpose.
var layers = []struct{ pkg, may string }{
	{".", "commands"},
	{"commands", "client client/... creds format completions man internal/..."},
	// client chooses a server's credentials (ARCHITECTURE.md: "client → creds
	// through its handler interface") and uses internal/* packages, which
	// themselves import only leaves.
	{"client", "client/serve client/conn client/input client/credentials client/sessions client/hold client/holdwire client/config client/state client/transport client/skills client/tasks creds internal/..."},
	// mcpc serve: downstream clients, each linked to a holder of the
	// server (a session's, or one serve keeps); its --allow and --deny
	// match tools as the entries' filters do (config.MatchTool).
	{"client/serve", "client/conn client/hold client/config client/transport internal/..."},
	// The holder reaches the connection through conn.Relay (its Upstream
	// seam); both sides read what crosses the session's socket from
	// holdwire.
	{"client/hold", "client/conn client/input client/holdwire client/transport internal/..."},
	{"client/conn", "client/input client/holdwire client/config client/state client/transport client/skills client/tasks internal/..."},
	{"client/holdwire", leaves},
	// What a server asks while one of mcpc's requests runs, answered over
	// either era: the connection's SDK handlers and middleware use it.
	{"client/input", leaves},
	// What an invocation does with held servers: start one (its holder
	// runs hold), find, attach (conn.Held), list and stop them.
	{"client/sessions", "client/conn client/hold client/holdwire client/config client/state client/transport internal/..."},
	// Which credential a server gets, set on its connect options.
	{"client/credentials", "client/conn client/config creds internal/..."},
	{"client/cards", "client/config client/transport internal/..."},
	{"client/tasks", "client/state " + leaves},
	{"client/config", leaves},
	{"client/state", leaves},
	{"client/transport", leaves},
	{"client/skills", leaves},
	{"creds", leaves},
	{"format", leaves},
	{"completions", leaves},
	{"man", leaves},
	{"man/render", "man"},
	{"internal/...", leaves},
	{"bench/...", leaves},
	{"testscripts/...", leaves},
}

const module = "github.com/mcpc-dev/mcpc"

func matches(pattern, pkg string) bool {
	if sub, ok := strings.CutSuffix(pattern, "/..."); ok {
		return pkg == sub || strings.HasPrefix(pkg, sub+"/")
	}
	return pkg == pattern
}

// TestLayers fails when a package imports one it may not.
func TestLayers(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	imports := map[string][]string{}
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		pkg := rel(f[0])
		imports[pkg] = nil
		for _, imp := range f[1:] {
			if imp == module || strings.HasPrefix(imp, module+"/") {
				imports[pkg] = append(imports[pkg], rel(imp))
			}
		}
	}
	// The walk must have seen the module, or every check passes unasked.
	if len(imports) < 20 {
		t.Fatalf("go list found only %d packages:\n%s", len(imports), out)
	}
	isLeaf := func(p string) bool { return matches("internal/...", p) && len(imports[p]) == 0 }
	for pkg, deps := range imports {
		row := -1
		for i, l := range layers {
			if matches(l.pkg, pkg) {
				row = i
				break
			}
		}
		if row < 0 {
			t.Errorf("package %s is in no layer: add it to the table in layers_test.go", pkg)
			continue
		}
		for _, dep := range deps {
			ok := false
			for _, may := range strings.Fields(layers[row].may) {
				if may == leaves && isLeaf(dep) || matches(may, dep) {
					ok = true
				}
			}
			if !ok {
				t.Errorf("%s imports %s: its layer (%s) may import only %s", pkg, dep, layers[row].pkg, layers[row].may)
			}
		}
	}
}

// rel names a package of the module by its directory ("." for the root).
func rel(path string) string {
	if path == module {
		return "."
	}
	return strings.TrimPrefix(path, module+"/")
}
