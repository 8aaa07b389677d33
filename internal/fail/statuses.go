package fail

// Statuses are the exit statuses and what each means, in the one wording
// that `mcpc help exit-codes`, the man page and the README's table share
// (a test compares the README's rows with these).
var Statuses = []struct {
	Exit    int
	Meaning string
}{
	{ExitOK, "success"},
	{ExitToolError, "the tool ran and reported an error (isError: true), its result still printed; or a task failed; or mcpc diff found a breaking change; or mcpc replay --strict answered a request the recording had no answer for"},
	{ExitUsage, "usage error: bad flags, bad --args JSON, arguments or answers that do not match the schema, unknown command"},
	{ExitConfig, "configuration error: unknown server, invalid or untrusted config file"},
	{ExitAuth, "authentication required or failed, or the call denied on authorization grounds (SEP-2643), its result still printed"},
	{ExitConnection, "connection, transport or protocol failure: the server did not start, crashed, wrote something that is not JSON-RPC, sent a message over --max-message, or speaks another protocol; or it is rate limiting (JSON-RPC error -32023, SEP-3304) past the one wait mcpc honours"},
	{ExitTimeout, "timeout: --timeout for the whole invocation, --connect-timeout for start-up, --idle-timeout for a silent server, a task poll left unanswered (mcpc help tasks)"},
	{ExitRejected, "the server rejected the request (JSON-RPC error: unknown tool, invalid params), or cancelled or lost a task (expired ttl, unknown id)"},
	{ExitInterrupted, "interrupted: Ctrl-C or SIGTERM cancels the request, or the task mcpc call follows (the one mcpc task result waits for is left running), and tears down within a second; a second one stops at once, killing the server's process group"},
}

// CodesOf lists the codes that end with exit status exit, in the order of
// Codes.
func CodesOf(exit int) []Code {
	var cs []Code
	for _, c := range Codes {
		if c.Exit == exit {
			cs = append(cs, c.Code)
		}
	}
	return cs
}
