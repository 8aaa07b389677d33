package commands

import "time"

// holderWriteWait, when set, replaces the bound of one write to a held
// stdio server's stdin (hold.Holder.WriteWait). Only a binary built with
// the mcpc_testhooks tag sets it (testhooks_on.go): a script then sees a
// server that stops reading end its session in seconds, not the
// released binary's 30s.
var holderWriteWait time.Duration

// clock is the invocation's clock (Env.Now): what it says a token's age,
// a login's expiry and a record's time are. A test build replaces it with
// one the test harness advances (testhooks_on.go), so that scripts see
// tokens expire without waiting for them; the released binary's is the
// system's.
var clock = time.Now
