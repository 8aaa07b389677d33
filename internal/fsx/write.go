package fsx

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Symlinks says what WriteFile does when path is a symbolic link.
type Symlinks int

const (
	// Refuse fails on a symlink: state files live in private directories,
	// where a link can only have been planted.
	Refuse Symlinks = iota
	// Follow writes the link's target and leaves the link in place: the
	// user's own config files are often links into a dotfiles repository.
	Follow
)

// maxLinks bounds how many links WriteFile follows, as the kernel does.
const maxLinks = 40

// WriteFile replaces path with data atomically: a temporary file in the
// same directory is written, synced and renamed over path, and the
// directory is synced, so a crash leaves the old content or the new, never
// a mix or an empty file. perm applies to a new file; an existing file
// keeps its mode.
func WriteFile(path string, data []byte, perm fs.FileMode, links Symlinks) error {
	return WriteFileParts(path, [][]byte{data}, perm, links)
}

// WriteFileParts is WriteFile of the parts one after the other: a large
// document framed by a few bytes (a cached 30 MB list in its record) is
// written without being copied into one buffer first.
func WriteFileParts(path string, parts [][]byte, perm fs.FileMode, links Symlinks) error {
	target, err := resolve(path, links)
	if err != nil {
		return err
	}
	if st, err := os.Stat(target); err == nil {
		perm = st.Mode().Perm()
	}
	dir := filepath.Dir(target)
	name, err := writeTemp(target, parts, perm)
	if err == nil {
		err = os.Rename(name, target)
	}
	if err != nil {
		if name != "" {
			os.Remove(name)
		}
		return err
	}
	return syncDir(dir)
}

// resolve is the file WriteFile replaces: path itself, or under Follow the
// end of its chain of links (which need not exist yet).
func resolve(path string, links Symlinks) (string, error) {
	for range maxLinks {
		st, err := os.Lstat(path)
		if errors.Is(err, fs.ErrNotExist) {
			return path, nil
		}
		if err != nil {
			return "", err
		}
		if st.Mode()&fs.ModeSymlink == 0 {
			return path, nil
		}
		if links == Refuse {
			return "", &fs.PathError{Op: "write", Path: path, Err: errors.New("is a symbolic link; refusing to write through it")}
		}
		to, err := os.Readlink(path)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(to) {
			to = filepath.Join(filepath.Dir(path), to)
		}
		path = to
	}
	return "", &fs.PathError{Op: "write", Path: path, Err: fmt.Errorf("more than %d symbolic links", maxLinks)}
}

// CreateExcl creates path with data unless it exists (fs.ErrExist). Of
// two processes creating it at once the first wins; a reader never sees it
// half-written, since the data is written and synced to a temporary file
// that is then linked into place.
func CreateExcl(path string, data []byte, perm fs.FileMode) error {
	dir := filepath.Dir(path)
	name, err := writeTemp(path, [][]byte{data}, perm)
	if name != "" {
		defer os.Remove(name)
	}
	if err != nil {
		return err
	}
	if err := os.Link(name, path); err != nil {
		return err
	}
	return syncDir(dir)
}

// writeTemp writes data to a new temporary file beside path, with perm,
// and syncs it: what WriteFile renames and CreateExcl links into place. On
// an error after the file was made, its name is returned for removal.
func writeTemp(path string, parts [][]byte, perm fs.FileMode) (string, error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return "", err
	}
	for _, p := range parts {
		if _, err = tmp.Write(p); err != nil {
			break
		}
	}
	if err == nil {
		err = tmp.Chmod(perm)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	return tmp.Name(), err
}
