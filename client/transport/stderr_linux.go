package transport

import "golang.org/x/sys/unix"

// fionread asks how many bytes wait in a pipe (FIONREAD, which x/sys
// names TIOCINQ on Linux).
const fionread = unix.TIOCINQ
