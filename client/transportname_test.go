package client

import (
	"testing"

	"github.com/mcpc-dev/mcpc/client/config"
)

// The name listings show follows the one pin: --transport over "type",
// and for an HTTP server with neither, Streamable HTTP.
func TestTransportNameAndPin(t *testing.T) {
	const u = "https://x.example/mcp"
	for _, c := range []struct {
		srv       config.Server
		flag, pin string
		name      string
	}{
		{config.Server{Command: "srv"}, "", "", "stdio"},
		{config.Server{Command: "srv", Type: "stdio"}, "", "", "stdio"},
		{config.Server{URL: u}, "", "", "http"},
		{config.Server{URL: u}, "sse", "sse", "http"},
		{config.Server{URL: u, Type: "sse"}, "", "sse", "sse"},
		{config.Server{URL: u, Type: "sse"}, "auto", "", "sse"},
		{config.Server{URL: u, Type: "sse"}, "http", "http", "sse"},
		{config.Server{URL: u, Type: "streamable-http"}, "", "http", "http"},
		{config.Server{URL: u, Type: "streamableHttp"}, "", "http", "http"},
	} {
		if got := c.srv.TransportPin(c.flag); got != c.pin {
			t.Errorf("%+v --transport %q: pin %q, want %q", c.srv, c.flag, got, c.pin)
		}
		if got := TransportName(nil, &c.srv); got != c.name {
			t.Errorf("%+v: name %q, want %q", c.srv, got, c.name)
		}
	}
}
