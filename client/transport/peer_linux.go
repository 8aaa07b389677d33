package transport

import (
	"fmt"
	"net"

	"golang.org/x/sys/unix"

	"github.com/mcpc-dev/mcpc/internal/fsx"
)

// CheckPeer refuses a connection whose process runs as another user
// (SO_PEERCRED, which names its effective uid; fsx.IsUser, the rule
// DialHolder keeps): the directory and the socket's mode keep others
// out, and this holds even if either was loosened.
func CheckPeer(c net.Conn) error {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return ErrPeerRefused
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return err
	}
	var cred *unix.Ucred
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return err
	}
	if cerr != nil {
		return cerr
	}
	if !fsx.IsUser(int(cred.Uid)) {
		return fmt.Errorf("%w (uid %d, pid %d)", ErrPeerRefused, cred.Uid, cred.Pid)
	}
	return nil
}
