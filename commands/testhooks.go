package commands

import "time"

// holderWriteWait, when set, replaces the bound of one write to a held
// stdio server's stdin (client.Holder.WriteWait). Only a binary built with
// the mcpc_testhooks tag sets it (testhooks_on.go): a script then sees a
// server that stops reading end its session in seconds, not the
// released binary's 30s.
var holderWriteWait time.Duration
