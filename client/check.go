package client

import "github.com/mcpc-dev/mcpc/internal/fail"

// severityOrder orders failures by the exit status they give, the most
// severe first: a many-server command (mcpc list --check, mcpc grep)
// reports the most severe of its servers' failures, and `mcpc help
// exit-codes` says the same.
var severityOrder = [...]int{fail.ExitConnection, fail.ExitTimeout, fail.ExitAuth, fail.ExitRejected, fail.ExitUsage, fail.ExitConfig}

// Severity ranks a failure's code: lower is more severe. A code whose exit
// status is not in the order ranks after all those that are.
func Severity(c fail.Code) int {
	for i, e := range severityOrder {
		if c.Exit() == e {
			return i
		}
	}
	return len(severityOrder)
}

// CheckStatus is the one-word status of a server that failed a check,
// from its failure's code: the one explainer has decided what it was.
func CheckStatus(err error) string {
	switch c := fail.CodeOf(err); {
	case c == fail.AuthRequired:
		return "needs login"
	case c == fail.AuthFailed:
		return "auth failed"
	case c == fail.Untrusted:
		return "untrusted"
	case c.Exit() == fail.ExitTimeout:
		return "timeout"
	case c.Exit() == fail.ExitRejected:
		return "rejected"
	case c.Exit() == fail.ExitConfig || c.Exit() == fail.ExitUsage:
		return "unusable"
	}
	return "unreachable"
}
