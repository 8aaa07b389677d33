package fsx

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"time"

	"github.com/gofrs/flock"
)

// Lock takes an exclusive lock on the lock file at path (made 0600, its
// directory private), waiting until ctx ends. The kernel releases the lock
// of a process that dies, so a lock file left behind is never a stuck lock.
func Lock(ctx context.Context, path string) (unlock func(), err error) {
	if err := PrivateDir(filepath.Dir(path)); err != nil {
		return nil, err
	}
	fl := flock.New(path, flock.SetPermissions(0o600))
	ok, err := fl.TryLockContext(ctx, 10*time.Millisecond)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, ctx.Err()
	}
	return func() { fl.Unlock() }, nil
}

// LockPath is the lock file in dir that stands for target: a file replaced
// by rename cannot carry its own lock (a waiter would hold the old inode),
// so edits lock a file named by a hash of the target's absolute path.
func LockPath(dir, target string) string {
	// The directory is resolved, not the file: whether the file exists
	// yet must not change which lock stands for it.
	if abs, err := filepath.Abs(target); err == nil {
		target = abs
	}
	if real, err := filepath.EvalSymlinks(filepath.Dir(target)); err == nil {
		target = filepath.Join(real, filepath.Base(target))
	}
	sum := sha256.Sum256([]byte(target))
	return filepath.Join(dir, "edit-"+hex.EncodeToString(sum[:8])+".lock")
}
