package config

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/shellwords"
)

// A user config file or a --config file names commands mcpc runs as the
// user, so one that someone else can write is refused, as OpenSSH refuses
// an authorized_keys file others can write: the file (after symlinks)
// must not be writable by group or others nor owned by another user than
// the user or root, and the same holds for the directory it is in (and
// each link's directory, for a link or a chain of them), since whoever
// can write a directory can put another file in the file's place. A
// world-writable directory with the sticky bit (/tmp) is allowed: there
// only the file's owner may replace it. Directories further up are not
// checked: the user's own home is reached through directories the system
// owns, and a chain check would refuse a config kept on a shared mount
// for no gain. Project files (.mcp.json) are governed by 'mcpc trust'
// instead (and the project search already skips directories others can
// write).

// permCheck is the file system the check reads, and who the user is: a
// fake in tests.
type permCheck struct {
	stat  func(string) (fs.FileInfo, error) // follows symlinks
	lstat func(string) (fs.FileInfo, error)
	owner func(fs.FileInfo) (int, bool)
	euid  int
}

// safeConfig refuses path when someone other than the user (or root) can
// change it; nil when it is safe or does not exist (the read says so).
func (c permCheck) safeConfig(path string) error {
	fi, err := c.stat(path)
	if err != nil {
		return nil
	}
	target := path
	if li, err := c.lstat(path); err == nil && li.Mode()&fs.ModeSymlink != 0 {
		if t, err := filepath.EvalSymlinks(path); err == nil {
			target = t
		}
		// Each link's own directory decides where that link points: in a
		// chain, every one of them.
		link := path
		for range maxLinks {
			if li, err := c.lstat(link); err != nil || li.Mode()&fs.ModeSymlink == 0 {
				break
			}
			if err := c.safeDir(filepath.Dir(link), path); err != nil {
				return err
			}
			next, err := os.Readlink(link)
			if err != nil {
				break
			}
			if !filepath.IsAbs(next) {
				next = filepath.Join(filepath.Dir(link), next)
			}
			link = next
		}
	}
	if err := c.unsafe(fi, path, "config file "+path, false); err != nil {
		return err
	}
	return c.safeDir(filepath.Dir(target), path)
}

// maxLinks bounds the links of a chain that are followed (a loop is
// EvalSymlinks' error, and the file's read reports it).
const maxLinks = 40

func (c permCheck) safeDir(dir, path string) error {
	fi, err := c.stat(dir)
	if err != nil {
		return nil
	}
	return c.unsafe(fi, dir, fmt.Sprintf("the directory %s of config file %s", dir, path), true)
}

// unsafe is the refusal of fi (the file or directory at p, described as
// what) if others can write it or another user owns it.
func (c permCheck) unsafe(fi fs.FileInfo, p, what string, dir bool) error {
	mode := fi.Mode()
	sticky := dir && mode&fs.ModeSticky != 0 && mode.Perm()&0o002 != 0
	if mode.Perm()&0o022 != 0 && !sticky {
		return fail.New(fail.Config, "make it writable by you only: chmod go-w "+shellwords.Quote(p),
			"%s is writable by others (mode %04o), who could make mcpc run any command as you", what, mode.Perm())
	}
	if uid, ok := c.owner(fi); ok && uid != c.euid && uid != 0 {
		return fail.New(fail.Config, "if it is yours to use, make it yours: chown \"$(id -u)\" "+shellwords.Quote(p),
			"%s is owned by another user (uid %d), who could make mcpc run any command as you", what, uid)
	}
	return nil
}
