//go:build unix

package client

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestReadSmallFileRefusesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big")
	write(t, big, strings.Repeat("x", 2048))
	for path, want := range map[string]string{
		fifo:        "read " + fifo + ": not a regular file (a named pipe)",
		"/dev/zero": "read /dev/zero: not a regular file (a device)",
		dir:         "read " + dir + ": not a regular file (a directory)",
		big:         "read " + big + ": larger than the 1024-byte limit",
	} {
		if _, err := ReadSmallFile(path, 1024); err == nil || err.Error() != want {
			t.Errorf("ReadSmallFile(%s) = %v, want %q", path, err, want)
		}
	}
}
