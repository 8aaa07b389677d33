package fsx

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// TreeFile is one file of a tree WriteTree writes: Path is relative,
// "/"-separated.
type TreeFile struct {
	Path string
	Data []byte
}

// CheckTreeDir fails unless WriteTree can make dir: it must not exist, or
// be an empty directory (not a symlink to one), and never be merged into.
func CheckTreeDir(dir string) error {
	st, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return fmt.Errorf("%s exists and is not a directory (%s)", dir, FileKind(st.Mode()))
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	if len(entries) > 0 {
		return fmt.Errorf("%s exists and is not empty", dir)
	}
	return nil
}

// WriteTree makes dir hold exactly files, or leaves nothing: they are
// written (and synced) into a new temporary directory beside dir, which is
// renamed into place only when all are written. Every path must stay
// inside: the writes go through an os.Root, so neither "..", an absolute
// path nor a symlink can reach out of it, and no file is written twice
// (O_EXCL: two paths that name one file on a case-insensitive system
// fail). Files get perm and directories 0755, less the umask (dir itself
// is 0755).
func WriteTree(dir string, files []TreeFile, perm fs.FileMode) (err error) {
	if err := CheckTreeDir(dir); err != nil {
		return err
	}
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(dir)+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			os.RemoveAll(tmp)
		}
	}()
	root, err := os.OpenRoot(tmp)
	if err != nil {
		return err
	}
	defer root.Close()
	for _, f := range files {
		p := filepath.FromSlash(f.Path)
		if !filepath.IsLocal(p) {
			return fmt.Errorf("%q is not a path inside %s", f.Path, dir)
		}
		if d := filepath.Dir(p); d != "." {
			if err := root.MkdirAll(d, 0o755); err != nil {
				return err
			}
		}
		if err := writeIn(root, p, f.Data, perm); err != nil {
			return err
		}
	}
	// MkdirTemp made it 0700; the tree is the user's, like any directory.
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	if err := syncDir(tmp); err != nil {
		return err
	}
	if err := os.Rename(tmp, dir); err != nil {
		return err
	}
	return syncDir(parent)
}

func writeIn(root *os.Root, p string, data []byte, perm fs.FileMode) error {
	f, err := root.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
