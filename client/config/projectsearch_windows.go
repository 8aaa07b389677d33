package config

import "github.com/mcpc-dev/mcpc/internal/fsx"

// searchable lets the upward search for a project file look in every
// directory on Windows. Who may write to a directory is in its ACL, which
// the mode bits Go reports do not show (every writable directory reads as
// 0777): refusing a shared directory (C:\Users\Public) would take reading
// its ACL for write access granted to others. The search still stops at the
// repository root or the profile directory, and a file found applies only
// once trusted, as on unix.
func searchable(string) bool { return true }

// ownFile reports whether path exists: see fsx.OwnedByUser.
func ownFile(path string) bool { return fsx.OwnedByUser(path) }
