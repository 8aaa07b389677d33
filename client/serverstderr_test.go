package client

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/internal/fail"
)

// The flag decides where a stdio server's stderr goes, unless only its
// default is in force and the entry names a file of its own.
func TestServerStderr(t *testing.T) {
	dir := t.TempDir()
	cfgDir := filepath.Join(dir, "cfg")
	if err := os.Mkdir(cfgDir, 0o700); err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	stdio := &config.Entry{Name: "s", Server: &config.Server{Command: "srv", ServerStderr: "srv.log"}, File: &config.File{Path: filepath.Join(cfgDir, "config.json")}}

	if w, err := ServerStderr(&config.Entry{Server: &config.Server{URL: "https://x.example"}}, "show", false, dir, &stderr, nil); w != nil || err != nil {
		t.Errorf("HTTP: %v %v", w, err)
	}
	// The entry's file, relative to its config file, over the default.
	w, err := ServerStderr(stdio, "show", false, dir, &stderr, nil)
	if err != nil || w == nil {
		t.Fatalf("entry's file: %v %v", w, err)
	}
	w.Close()
	if _, err := os.Stat(filepath.Join(cfgDir, "srv.log")); err != nil {
		t.Errorf("entry's file not made beside the config: %v", err)
	}
	// A flag given beats the entry.
	if w, err := ServerStderr(stdio, "hide", true, dir, &stderr, nil); w != nil || err != nil {
		t.Errorf("hide: %v %v", w, err)
	}
	if _, err := ServerStderr(stdio, "", true, dir, &stderr, nil); fail.CodeOf(err) != fail.Usage || err.Error() != "--server-stderr needs show, hide or a file name" {
		t.Errorf("empty flag: %v", err)
	}
	// A file that cannot be opened: a usage error for the flag, a config
	// error for the entry.
	if _, err := ServerStderr(stdio, filepath.Join(dir, "no", "such", "log"), true, dir, &stderr, nil); fail.CodeOf(err) != fail.Usage || !strings.HasPrefix(err.Error(), "cannot open --server-stderr file: ") {
		t.Errorf("flag file: %v", err)
	}
	stdio.Server.ServerStderr = filepath.Join(dir, "no", "such", "log")
	if _, err := ServerStderr(stdio, "show", false, dir, &stderr, nil); fail.CodeOf(err) != fail.Config || !strings.HasPrefix(err.Error(), "cannot open the serverStderr file: ") {
		t.Errorf("entry file: %v", err)
	}
}
