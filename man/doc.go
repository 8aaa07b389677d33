// Package man builds mcpc's manual page, mcpc.1, from the one command tree
// (through urfave/cli-docs) and the sections that are written by hand. The
// committed mcpc.1 is checked against it by a test, so it cannot go stale.
package man
