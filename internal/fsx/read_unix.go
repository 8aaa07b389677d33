//go:build unix

package fsx

import (
	"os"
	"syscall"
)

// openRead opens for reading without blocking: opening a FIFO with no
// writer would otherwise wait for ever.
func openRead(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
