//go:build !linux

package transport

// SocketBacklog is Linux only (sock_diag): elsewhere what waits on a
// socket is not known.
func SocketBacklog(string) (int, bool) { return 0, false }
