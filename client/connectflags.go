package client

import (
	"slices"
	"strings"
	"time"

	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/client/conn"
	"github.com/mcpc-dev/mcpc/client/transport"
	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/units"
)

// ConnectFlags are the flags that shape a connection, as given.
type ConnectFlags struct {
	Timeout, ConnectTimeout, ProbeTimeout time.Duration
	// IdleTimeout is --idle-timeout, when IdleSet; TimeoutSet says
	// --timeout was given.
	IdleTimeout         time.Duration
	IdleSet, TimeoutSet bool
	// MaxMessage is --max-message as written ("128MiB"), Protocol and
	// Transport the pins of --protocol and --transport.
	MaxMessage, Protocol, Transport string
}

// Check checks the flags and returns the idle bound they ask for (the
// flag, else the default unless --timeout bounds the whole invocation)
// and the message bound (0: the server's "maxMessage" or the default).
func (f ConnectFlags) Check() (idle time.Duration, maxMessage int64, err error) {
	switch {
	case f.IdleSet:
		idle = f.IdleTimeout
	case !f.TimeoutSet:
		idle = transport.DefaultIdleTimeout
	}
	if f.Timeout < 0 || f.ConnectTimeout < 0 || f.ProbeTimeout < 0 || idle < 0 {
		return 0, 0, fail.New(fail.Usage, "", "timeouts cannot be negative")
	}
	if f.MaxMessage != "" {
		if maxMessage, err = units.ParseSize(f.MaxMessage); err != nil {
			return 0, 0, fail.New(fail.Usage, "", "--max-message: %v", err)
		}
	}
	if p := f.Protocol; p != "" && !slices.Contains(config.Protocols, p) {
		return 0, 0, fail.New(fail.Usage, "", "--protocol must be one of %s, not %q", strings.Join(config.Protocols, ", "), p)
	}
	if t := f.Transport; t != "" && !slices.Contains(conn.Transports, t) {
		return 0, 0, fail.New(fail.Usage, "", "--transport must be one of %s, not %q", strings.Join(conn.Transports, ", "), t)
	}
	return idle, maxMessage, nil
}
