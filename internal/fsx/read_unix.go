//go:build unix

package fsx

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// openRead opens for reading without blocking: opening a FIFO with no
// writer would otherwise wait for ever. Unless follow, a symlink makes the
// open fail (O_NOFOLLOW), reported as what it is.
func openRead(path string, follow bool) (*os.File, error) {
	flags := os.O_RDONLY | syscall.O_NONBLOCK
	if !follow {
		flags |= syscall.O_NOFOLLOW
	}
	f, err := os.OpenFile(path, flags, 0)
	if !follow && errors.Is(err, syscall.ELOOP) {
		if st, lerr := os.Lstat(path); lerr == nil && st.Mode()&fs.ModeSymlink != 0 {
			return nil, &fs.PathError{Op: "read", Path: path, Err: &NotRegularError{Kind: FileKind(st.Mode())}}
		}
	}
	return f, err
}
