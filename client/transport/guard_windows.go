package transport

import "io"

// GuardCommand is a unix guard's; on Windows a server's Job object is
// closed by Windows when the holder ends in any way, and every process in
// it is killed.
const GuardCommand = "__guard"

// Guard has nothing to do on Windows: see GuardCommand.
func (p *Process) Guard() error { return nil }

func (p *Process) unguard() {}

// Group is 0 on Windows: a server's tree is its Job object.
func (p *Process) Group() int { return 0 }

// Guarding is false on Windows: no guard is started there.
func Guarding([]string) bool { return false }

// RunGuard is never run on Windows (Guarding).
func RunGuard(io.Reader, []string) int { return 2 }

// EndGroup has nothing to stop on Windows: the Job object took the tree.
func EndGroup(int, string) bool { return false }

// EndRecordedGroup has nothing to stop on Windows either.
func EndRecordedGroup(int, string) bool { return false }
