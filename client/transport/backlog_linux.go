package transport

import (
	"encoding/binary"
	"syscall"

	"golang.org/x/sys/unix"
)

// The kernel's sock_diag interface (linux/unix_diag.h): what ss -xl
// shows of a listening Unix socket.
const (
	sockDiagByFamily = 20 // SOCK_DIAG_BY_FAMILY
	diagShowVFS      = 0x02
	diagShowRQLen    = 0x10
	diagAttrVFS      = 1
	diagAttrRQLen    = 4
	tcpListen        = 10
	// diagReadBound bounds what one look reads: a machine's listening
	// Unix sockets are a few hundred, each reply some 40 bytes.
	diagReadBound = 4 << 20
)

// SocketBacklog is how many connections wait, not yet accepted, on the
// Unix socket listening at path: its listener's queue, as the kernel
// counts it (sock_diag, found by the socket file's device and inode).
// A holder whose connections wait there is not taking them (busy with
// as many invocations as it serves at once, or stopped); one with none
// waiting took them. False when the kernel does not say (no listener at
// path, no sock_diag).
func SocketBacklog(path string) (waiting int, ok bool) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFSOCK {
		return 0, false
	}
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, unix.NETLINK_SOCK_DIAG)
	if err != nil {
		return 0, false
	}
	defer unix.Close(fd)
	// A kernel that never answers must not hang the look.
	unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &unix.Timeval{Sec: 1})
	ne := binary.NativeEndian
	req := make([]byte, unix.NLMSG_HDRLEN+24) // nlmsghdr + unix_diag_req
	ne.PutUint32(req[0:], uint32(len(req)))
	ne.PutUint16(req[4:], sockDiagByFamily)
	ne.PutUint16(req[6:], unix.NLM_F_REQUEST|unix.NLM_F_DUMP)
	req[16] = unix.AF_UNIX
	ne.PutUint32(req[20:], 1<<tcpListen) // listeners only
	ne.PutUint32(req[28:], diagShowVFS|diagShowRQLen)
	if err := unix.Sendto(fd, req, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return 0, false
	}
	buf := make([]byte, 64<<10)
	for read := 0; read < diagReadBound; {
		n, _, err := unix.Recvfrom(fd, buf, 0)
		if err != nil || n == 0 {
			return 0, false
		}
		read += n
		msgs, err := syscall.ParseNetlinkMessage(buf[:n])
		if err != nil {
			return 0, false
		}
		for _, m := range msgs {
			if m.Header.Type == unix.NLMSG_DONE || m.Header.Type == unix.NLMSG_ERROR {
				return 0, false
			}
			if q, found := listenerQueue(m.Data, st); found {
				return q, true
			}
		}
	}
	return 0, false
}

// listenerQueue reads one unix_diag_msg: the length of its queue when
// it is the listener bound to the file st describes.
func listenerQueue(msg []byte, st unix.Stat_t) (int, bool) {
	const msgLen = 16 // unix_diag_msg
	if len(msg) < msgLen {
		return 0, false
	}
	ne := binary.NativeEndian
	var ino, dev uint32
	vfs, queue := false, -1
	for attrs := msg[msgLen:]; len(attrs) >= unix.SizeofRtAttr; {
		l, t := int(ne.Uint16(attrs)), ne.Uint16(attrs[2:])
		if l < unix.SizeofRtAttr || l > len(attrs) {
			break
		}
		v := attrs[unix.SizeofRtAttr:l]
		switch {
		case t == diagAttrVFS && len(v) >= 8:
			ino, dev, vfs = ne.Uint32(v), ne.Uint32(v[4:]), true
		case t == diagAttrRQLen && len(v) >= 8:
			queue = int(ne.Uint32(v))
		}
		attrs = attrs[min(len(attrs), (l+3)&^3):]
	}
	// The kernel gives the device as its own dev_t (major << 20 | minor).
	if !vfs || queue < 0 || uint64(ino) != st.Ino || dev>>20 != unix.Major(st.Dev) || dev&(1<<20-1) != unix.Minor(st.Dev) {
		return 0, false
	}
	return queue, true
}
