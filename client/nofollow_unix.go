//go:build unix

package client

import "syscall"

// noFollow makes opening a planted symlink fail instead of reading through
// it.
const noFollow = syscall.O_NOFOLLOW
