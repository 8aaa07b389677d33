package client

import (
	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/client/conn"
	"github.com/mcpc-dev/mcpc/client/state"
)

// TransportName is how listings name the transport mcpc speaks to srv:
// "stdio", "http" (Streamable HTTP) or "sse" (HTTP+SSE, pinned or
// remembered; m may be nil).
func TransportName(m *state.Memo, srv *config.Server) string {
	if srv.URL == "" {
		return "stdio"
	}
	if pin := srv.TransportPin(""); pin != "" {
		return pin
	}
	if m != nil {
		if rec := m.Era(conn.ServerKey(&config.Entry{Server: srv}, "")); rec != nil && rec.Transport == state.TransportSSE {
			return "sse"
		}
	}
	return "http"
}
