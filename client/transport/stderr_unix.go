//go:build unix

package transport

import (
	"io"
	"syscall"

	"golang.org/x/sys/unix"
)

// read takes what the pipe holds, waiting for it outside the lock, and
// counts it under the lock in the same step: Mark never sees bytes that
// have left the pipe but are not counted yet.
func (p *stderrPipe) read(buf []byte) (int, error) {
	rc, err := p.f.SyscallConn()
	if err != nil {
		return 0, err
	}
	var n int
	var rerr error
	err = rc.Read(func(fd uintptr) bool {
		p.mu.Lock()
		defer p.mu.Unlock()
		n, rerr = syscall.Read(int(fd), buf)
		if rerr == syscall.EAGAIN || rerr == syscall.EINTR {
			return false // wait until it is readable
		}
		if n > 0 {
			p.took += int64(n)
		}
		return true
	})
	switch {
	case err != nil:
		return 0, err
	case rerr != nil:
		return 0, rerr
	case n <= 0:
		return 0, io.EOF
	}
	return n, nil
}

// pending is what waits in the pipe (called under p.mu).
func (p *stderrPipe) pending() int64 {
	rc, err := p.f.SyscallConn()
	if err != nil {
		return 0
	}
	var n int
	rc.Control(func(fd uintptr) {
		n, _ = unix.IoctlGetInt(int(fd), fionread)
	})
	return int64(max(n, 0))
}
