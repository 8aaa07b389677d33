package conn

import (
	"fmt"

	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/client/transport"
	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/units"
)

// MaxMaxMessage is the largest --max-message mcpc accepts: a message is
// held in memory whole.
const MaxMaxMessage = units.MaxSize

// MessageLimit is the bound on one message from e's server: --max-message,
// else the entry's "maxMessage", else the default.
func MessageLimit(e *config.Entry, o ConnectOptions) int64 {
	switch {
	case o.MaxMessage > 0:
		return o.MaxMessage
	case e.Server.MaxMessage > 0:
		return int64(e.Server.MaxMessage)
	}
	return transport.DefaultMaxMessage
}

// limitFailure explains a message over a limit, if one arrived: the
// connection ends there, which the SDK reports as a closed connection.
func (s *Conn) limitFailure() *fail.Error {
	return s.limitExplained(s.wire.tap.LimitErr(), "raise the limit with")
}

// limitExplained explains err, the limit a message broke (nil: none);
// raise leads the hint's way to raise the size limit.
func (s *Conn) limitExplained(err error, raise string) *fail.Error {
	switch err {
	case transport.ErrTooLarge:
		var hint string
		if s.maxMessage >= MaxMaxMessage {
			// Nothing raises it: never suggest a size ParseSize refuses.
			hint = fmt.Sprintf("%s is the largest limit mcpc accepts (a message is held in memory whole)", units.SizeText(MaxMaxMessage))
		} else {
			hint = fmt.Sprintf("%s --max-message SIZE (e.g. --max-message %s)", raise, units.SizeText(min(2*s.maxMessage, MaxMaxMessage)))
			if s.Entry.File != nil {
				hint += fmt.Sprintf(", or with \"maxMessage\" for %q in %s", s.Entry.Name, s.Entry.File.Path)
			}
		}
		return &fail.Error{Code: fail.TooLarge, Err: err, Hint: hint,
			Msg: fmt.Sprintf("%s sent a message larger than the %s limit", s.Label, units.SizeText(s.maxMessage))}
	case transport.ErrFlood:
		return &fail.Error{Code: fail.Protocol, Err: err,
			Hint: "the server must read the answers to its requests; report this to its authors",
			Msg:  fmt.Sprintf("%s sent more than %d requests without reading mcpc's answers for %s", s.Label, transport.MaxServerRequests, transport.FloodGrace)}
	case transport.ErrTooDeep:
		return &fail.Error{Code: fail.TooLarge, Err: err,
			Hint: fmt.Sprintf("JSON nested deeper than %d levels is refused by the JSON decoder mcpc and its MCP library use; no setting raises it", transport.MaxDepth),
			Msg:  fmt.Sprintf("%s sent a message nested more than %d levels deep", s.Label, transport.MaxDepth)}
	}
	return nil
}
