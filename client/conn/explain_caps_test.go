package conn

import (
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcpc-dev/mcpc/client/config"
)

// A -32021 names the capabilities the server requires, on one line.
func TestMissingCapabilityHint(t *testing.T) {
	s := &Conn{Entry: &config.Entry{Name: "x", Server: &config.Server{}}, Label: `server "x"`}
	rpc := &jsonrpc.Error{Code: codeMissingCapability, Message: "missing capability",
		Data: json.RawMessage("{\"requiredCapabilities\": {\n  \"elicitation\": {\"form\": {}}\n}}")}
	f := s.rpcFailure(rpc, rpc)
	want := `the server needs a client capability mcpc does not declare for this request ({"elicitation":{"form":{}}})`
	if f.Hint != want {
		t.Errorf("hint = %q, want %q", f.Hint, want)
	}
	rpc.Data = nil
	if f := s.rpcFailure(rpc, rpc); f.Hint != "the server needs a client capability mcpc does not declare for this request" {
		t.Errorf("without data: hint = %q", f.Hint)
	}
}
