package conn

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/client/input"
	"github.com/mcpc-dev/mcpc/client/transport"
)

// The handshake and mcpc's own 2026-07-28 requests declare the same
// capabilities: elicitation only when something answers, and the tasks
// and skills extensions always.
func TestClientCapabilitiesOneDeclaration(t *testing.T) {
	answer := &input.Input{Elicit: func(context.Context, string, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
		return &mcp.ElicitResult{Action: "decline"}, nil
	}}
	for _, tc := range []struct {
		name    string
		in      *input.Input
		elicits bool
	}{
		{"no one answers", nil, false},
		{"log only", &input.Input{Log: func(string, string, any) {}}, false},
		{"answers", answer, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := ConnectOptions{Input: tc.in, Version: "test"}
			s := &Conn{Entry: &config.Entry{Name: "x", Server: &config.Server{}}, Label: `server "x"`,
				wire: newWire(), idle: transport.NewIdleWatch(0), opts: o}
			caps := s.envelope()[mcp.MetaKeyClientCapabilities].(*mcp.ClientCapabilities)
			if e := caps.Elicitation; (e != nil) != tc.elicits || e != nil && (e.Form == nil || e.URL == nil) {
				t.Errorf("elicitation = %+v, want it offered: %v", e, tc.elicits)
			}
			_, tasks := caps.Extensions[TaskExtension]
			_, skills := caps.Extensions["io.modelcontextprotocol/skills"]
			if !tasks || !skills || len(caps.Extensions) != 2 {
				t.Errorf("capabilities = %+v, want the tasks and skills extensions and no more", caps)
			}
			envelope, _ := json.Marshal(caps)

			got := make(chan *mcp.ClientCapabilities, 1)
			srv := mcp.NewServer(&mcp.Implementation{Name: "srv", Version: "1"}, &mcp.ServerOptions{
				InitializedHandler: func(_ context.Context, r *mcp.InitializedRequest) {
					got <- r.Session.InitializeParams().Capabilities
				},
			})
			ct, st := mcp.NewInMemoryTransports()
			ss, err := srv.Connect(t.Context(), st, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer ss.Close()
			cs, err := s.newClient(o).Connect(t.Context(), ct, &mcp.ClientSessionOptions{ProtocolVersion: legacyVersion})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			handshake, _ := json.Marshal(<-got)
			if string(handshake) != string(envelope) {
				t.Errorf("handshake capabilities = %s, _meta ones = %s", handshake, envelope)
			}
		})
	}
}
