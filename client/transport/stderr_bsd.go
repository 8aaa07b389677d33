//go:build unix && !linux

package transport

// fionread asks how many bytes wait in a pipe: FIONREAD, _IOR('f', 127,
// int) on macOS and the BSDs, which x/sys does not name.
const fionread = 0x4004667f
