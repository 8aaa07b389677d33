package fsx

import "os"

// openRead opens for reading; Windows has no FIFOs that block an open.
func openRead(path string) (*os.File, error) { return os.Open(path) }
