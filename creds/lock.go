package creds

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/fsx"
)

// defaultLockWait bounds how long a process waits for another one's
// refresh: a refresh is one HTTP request, so this is generous.
const defaultLockWait = 30 * time.Second

// lockGiveUpEarly is how long before the invocation's deadline a waiter
// stops waiting for the lock.
const lockGiveUpEarly = 250 * time.Millisecond

// withLock runs f holding the record's lock file. The file names its
// holder (PID and time, never a secret) so a process that gives up can say
// whom it waited for. Locks are never stolen by age: the kernel releases a
// dead holder's flock, so a stale-looking file is never a stuck lock.
func (t *Tokens) withLock(f func() error) error {
	return withRecordLock(t.ctx, t.o.LockDir, t.o.Ref, t.o.LockWait, t.o.Now, f)
}

// withRecordLock is withLock for any holder of a record: the stored login
// (Tokens) and an enterprise login's ID token refresh take the same lock.
func withRecordLock(pctx context.Context, dir string, ref Ref, wait time.Duration, now func() time.Time, f func() error) error {
	if dir == "" {
		// A relative lock file would lock only the invocations started in
		// the same directory: the others would write over each other.
		return fail.New(fail.Internal, "", "the token refresh lock of %s has no directory", ref.Server)
	}
	path := filepath.Join(dir, ref.Key+".lock")
	// Give up a little before the invocation's own deadline, so the
	// failure names the holder instead of being a bare timeout.
	if d, ok := pctx.Deadline(); ok {
		wait = min(wait, time.Until(d)-lockGiveUpEarly)
	}
	ctx, cancel := context.WithTimeout(pctx, max(wait, 0))
	defer cancel()
	unlock, err := fsx.Lock(ctx, path)
	if err != nil && ctx.Err() == nil {
		return fail.Wrap(fail.AuthFailed, err, "", "cannot take the token refresh lock")
	}
	if err != nil {
		if pctx.Err() != nil && !errors.Is(pctx.Err(), context.DeadlineExceeded) {
			return pctx.Err()
		}
		holder := strings.TrimSpace(readHolder(path))
		if holder == "" {
			holder = "another mcpc process"
		}
		return fail.New(fail.Timeout, "if that process is stuck, end it; the lock is freed when it exits",
			"gave up waiting for the token refresh of %s held by %s", ref.Server, holder)
	}
	defer unlock()
	// Written in place, not by fsx.WriteFile: the lock is held on this
	// inode, and a file renamed over it would be one nobody holds.
	note := fmt.Sprintf("pid %d since %s\n", os.Getpid(), now().UTC().Format(time.RFC3339))
	_ = os.WriteFile(path, []byte(note), 0o600)
	return f()
}

// saveLocked is Save holding ref's lock. Every write of a login's record
// holds it (a login, a logout, a refresh, a step-up): a refresh reads the
// record, asks the token endpoint and writes what it got, and a login
// stored in between would be overwritten by the refreshed old one. The
// wait is withRecordLock's: bounded, and a dead holder's lock is free.
func saveLocked(ctx context.Context, st Store, lockDir string, ref Ref, rec *Record, now func() time.Time) error {
	return withRecordLock(ctx, lockDir, ref, defaultLockWait, now, func() error {
		return Save(ctx, st, ref, rec, now())
	})
}

func readHolder(path string) string {
	b, err := fsx.ReadFile(path, 1024)
	if err != nil {
		return ""
	}
	s := string(b)
	if !strings.HasPrefix(s, "pid ") {
		return ""
	}
	if i := strings.Index(s, " since "); i > 0 {
		return "process " + s[len("pid "):i]
	}
	return ""
}
