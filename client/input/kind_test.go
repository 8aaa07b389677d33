package input

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpc-dev/mcpc/internal/fail"
)

// An input request of no kind mcpc knows (here an entry the SDK left
// empty) is the server's protocol failure, named, never answered.
func TestFulfilUnknownKind(t *testing.T) {
	s := &State{Label: `server "x"`}
	_, err := s.Fulfil(context.Background(), mcp.InputRequestMap{"k": nil})
	if e := fail.As(err); e == nil || e.Code != fail.Protocol || e.Msg != `server "x" asked for input of an unknown kind (<nil>)` {
		t.Fatalf("fulfil: %v (%s)", err, fail.CodeOf(err))
	}
}
