package transport

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"

	"github.com/mcpc-dev/mcpc/internal/fsx"
)

// Found is a process FindProcesses found: its pid and its start
// (ProcessStart), so that it is signalled only while it is the same.
type Found struct {
	PID   int
	Start string
}

// FindProcesses lists the user's live processes (fsx.IsUser) whose
// command line is a program and arg alone and whose environment holds
// env ("KEY=VALUE"): a session's holders, which mcpc session stop --all
// finds by process as well as by record. Another user's are never read.
func FindProcesses(arg, env string) []Found {
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	var out []Found
	for _, d := range dirs {
		pid, err := strconv.Atoi(filepath.Base(d))
		if err != nil || pid == os.Getpid() {
			continue
		}
		if st, err := os.Stat(d); err != nil {
			continue
		} else if uid, ok := fsx.Owner(st); !ok || !fsx.IsUser(uid) {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join(d, "cmdline"))
		if err != nil {
			continue
		}
		if args := bytes.Split(bytes.TrimSuffix(cmdline, []byte{0}), []byte{0}); len(args) != 2 || string(args[1]) != arg {
			continue
		}
		environ, err := os.ReadFile(filepath.Join(d, "environ"))
		if err != nil || !hasEntry(environ, env) {
			continue
		}
		if start := ProcessStart(pid); start != "" {
			out = append(out, Found{PID: pid, Start: start})
		}
	}
	return out
}

// hasEntry reports whether the NUL-separated environ holds entry.
func hasEntry(environ []byte, entry string) bool {
	for _, e := range bytes.Split(environ, []byte{0}) {
		if string(e) == entry {
			return true
		}
	}
	return false
}
