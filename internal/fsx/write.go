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
	p, err := createPending(target, perm)
	if err != nil {
		return err
	}
	for _, b := range parts {
		if _, err := p.Write(b); err != nil {
			p.Abort()
			return err
		}
	}
	return p.Commit()
}

// Pending is a file written as it goes that replaces its path atomically
// when done (WriteFile for what is not in memory at once: a recording of
// a session's traffic). Until Commit it is a temporary file beside the
// path, already with its final mode, so what it holds is never readable
// by others; Abort removes it. Not safe for concurrent use.
type Pending struct {
	f      *os.File
	target string
	perm   fs.FileMode
	err    error
}

// CreatePending starts the file that will replace path with mode perm
// (whatever mode an existing file has). A directory that is missing or
// not writable is an error here, before anything is written.
func CreatePending(path string, perm fs.FileMode, links Symlinks) (*Pending, error) {
	target, err := resolve(path, links)
	if err != nil {
		return nil, err
	}
	return createPending(target, perm)
}

func createPending(target string, perm fs.FileMode) (*Pending, error) {
	f, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".tmp-*")
	if err != nil {
		return nil, err
	}
	p := &Pending{f: f, target: target, perm: perm}
	if err := f.Chmod(perm); err != nil {
		p.Abort()
		return nil, err
	}
	return p, nil
}

// Write appends b; after an error every Write returns it.
func (p *Pending) Write(b []byte) (int, error) {
	if p.err != nil {
		return 0, p.err
	}
	n, err := p.f.Write(b)
	p.err = err
	return n, err
}

// Commit syncs the file and renames it over the path, then syncs the
// directory. After an earlier Write error it aborts and returns that.
func (p *Pending) Commit() error {
	err := p.err
	if err == nil {
		err = p.f.Sync()
	}
	if cerr := p.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(p.f.Name(), p.target)
	}
	if err != nil {
		os.Remove(p.f.Name())
		return err
	}
	return syncDir(filepath.Dir(p.target))
}

// Abort removes the file; the path is left as it was.
func (p *Pending) Abort() {
	p.f.Close()
	os.Remove(p.f.Name())
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
// and syncs it: what CreateExcl links into place. On an error after the
// file was made, its name is returned for removal.
func writeTemp(path string, parts [][]byte, perm fs.FileMode) (string, error) {
	p, err := createPending(path, perm)
	if err != nil {
		return "", err
	}
	for _, b := range parts {
		if _, err = p.Write(b); err != nil {
			break
		}
	}
	if err == nil {
		err = p.f.Sync()
	}
	if cerr := p.f.Close(); err == nil {
		err = cerr
	}
	return p.f.Name(), err
}
