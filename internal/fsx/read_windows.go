package fsx

import "os"

// openRead opens for reading; Windows has no FIFOs that block an open.
// Nor has its open a no-follow flag, so follow is not honoured: the files
// read without following live in the user's state directory, private to
// the user by the profile's ACLs, so no one else can plant a link there
// (and making a symbolic link needs a privilege or developer mode anyway).
func openRead(path string, follow bool) (*os.File, error) { return os.Open(path) }
