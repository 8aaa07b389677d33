package config

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/mcpc-dev/mcpc/internal/fail"
)

func TestTargets(t *testing.T) {
	dir := t.TempDir()
	cfgFile := filepath.Join(dir, "servers.json")
	if err := os.WriteFile(cfgFile, []byte(`{"mcpServers": {
  "b": {"command": "srv-b"},
  "a": {"url": "https://a.example/mcp", "type": "sse"},
  "off": {"command": "srv-off", "disabled": true}
}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(dir, "home")
	cfg, err := Load(LoadOptions{Dirs: Dirs{Config: filepath.Join(home, "config"), State: filepath.Join(home, "state"), Cache: filepath.Join(home, "cache"), Home: home},
		Cwd: dir, ConfigFiles: []string{cfgFile}})
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		Name, Skip string
		Started    bool
		Named      bool
	}
	rows := func(ts []Target) []row {
		var out []row
		for _, t := range ts {
			out = append(out, row{t.Name, t.Skip, t.Entry != nil, t.Named})
			if t.Server == nil {
				panic("a target without its definition: " + t.Name)
			}
		}
		return out
	}
	// Every configured server, sorted; the disabled one listed, not started.
	all, err := cfg.Targets(nil, AdHoc{})
	if want := []row{{"a", "", true, false}, {"b", "", true, false}, {"off", "disabled", false, false}}; err != nil || !reflect.DeepEqual(rows(all), want) {
		t.Errorf("all: %+v %v", rows(all), err)
	}
	// Names: each once, in the order given; a URL too, redacted.
	named, err := cfg.Targets([]string{"b", "https://x.example/mcp?key=s3cret", "b"}, AdHoc{})
	if want := []row{{"b", "", true, true}, {"https://x.example/mcp?key=REDACTED", "", true, true}}; err != nil || !reflect.DeepEqual(rows(named), want) {
		t.Errorf("named: %+v %v", rows(named), err)
	}
	// An unknown name fails before anything connects.
	if _, err := cfg.Targets([]string{"a", "nope"}, AdHoc{}); fail.CodeOf(err) != fail.Config {
		t.Errorf("unknown: %v", err)
	}
	// --stdio is the one target; names beside it are a usage error.
	if ts, err := cfg.Targets(nil, AdHoc{Stdio: "srv --x"}); err != nil || len(ts) != 1 || ts[0].Entry == nil || !ts[0].Named {
		t.Errorf("stdio: %+v %v", ts, err)
	}
	if _, err := cfg.Targets([]string{"a"}, AdHoc{Stdio: "srv"}); fail.CodeOf(err) != fail.Usage || err.Error() != `unexpected argument "a" with --stdio` {
		t.Errorf("stdio and names: %v", err)
	}
}
