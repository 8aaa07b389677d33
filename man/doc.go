// Package man holds mcpc's manual page, mcpc.1, embedded for `mcpc man`, and
// the parts it is made of. The page is rendered from the one command tree
// and the written sections by man/render, in the test that keeps the
// committed mcpc.1 current; the binary only prints the copy.
package man
