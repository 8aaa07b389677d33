package fsx

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// PrivateDir makes dir (0700, parents too), or checks an existing one: a
// real directory (a symlink in its place could point writes and pruning at
// someone else's files), owned by the user, and private (a mode that lets
// others in is tightened).
func PrivateDir(dir string) error {
	st, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
			return err
		}
		if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
		st, err = os.Lstat(dir)
	}
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return fmt.Errorf("%s is not a directory (%s); remove it", dir, FileKind(st.Mode()))
	}
	if !ownedByUser(st) {
		return fmt.Errorf("%s belongs to another user; remove it", dir)
	}
	if st.Mode().Perm()&0o077 != 0 {
		return os.Chmod(dir, 0o700)
	}
	return nil
}

// PrivateFile makes an existing file readable and writable by its owner
// only (0600), before something secret is written into it: an atomic write
// keeps an existing file's mode, so tightening afterwards would leave the
// secret readable in between. A missing file is no error (a new one is
// made private by whoever creates it).
func PrivateFile(path string) error {
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() == 0o600 {
		return nil
	}
	return os.Chmod(path, 0o600)
}

// SameFile reports whether a and b (after symlinks) are one existing file.
func SameFile(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}
