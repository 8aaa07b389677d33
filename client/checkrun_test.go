package client

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/internal/fail"
)

// someTools lists its tools, or fails.
type someTools struct {
	n   int
	err error
}

func (s someTools) ListTools(context.Context, ...string) ([]*mcp.Tool, error) {
	return make([]*mcp.Tool, s.n), s.err
}

// What a check measures of each server: its revision and, only when it
// declares tools, how many; a failed list, a failed connect and an
// interrupt are the server's failure; a named target that cannot be used
// has failed before anything is reached.
func TestChecksMeasure(t *testing.T) {
	interrupted := errors.New("interrupted")
	withTools := &mcp.InitializeResult{ProtocolVersion: "2025-11-25", Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}}}
	noTools := &mcp.InitializeResult{ProtocolVersion: "2025-06-18", Capabilities: &mcp.ServerCapabilities{}}
	targets := []Target{
		{Target: config.Target{Name: "tools", Entry: &config.Entry{}}, Transport: "stdio"},
		{Target: config.Target{Name: "none", Entry: &config.Entry{}}, Transport: "http"},
		{Target: config.Target{Name: "listfails", Entry: &config.Entry{}}, Transport: "http"},
		{Target: config.Target{Name: "down", Entry: &config.Entry{}}, Transport: "http"},
		{Target: config.Target{Name: "bad", Named: true, Err: fail.New(fail.Config, "fix it", "bad entry")}, Transport: "stdio"},
		{Target: config.Target{Name: "stopped", Entry: &config.Entry{}}, Transport: "stdio"},
	}
	c := NewChecks(targets, interrupted)
	ctx := context.Background()
	c.Measure(ctx, 0, time.Now(), withTools, someTools{n: 3}, nil)
	c.Measure(ctx, 1, time.Now(), noTools, someTools{err: errors.New("not asked")}, nil)
	c.Measure(ctx, 2, time.Now(), withTools, someTools{err: fail.New(fail.Protocol, "", "bad list")}, nil)
	c.Measure(ctx, 3, time.Now(), nil, nil, fail.New(fail.Connection, "is it up?", "cannot reach down"))
	stopped, cancel := context.WithCancelCause(ctx)
	cancel(interrupted)
	c.Measure(stopped, 5, time.Now(), nil, nil, context.Canceled)
	rows := c.Done(ctx)
	for i, want := range []string{
		`{"name":"tools","transport":"stdio","status":"ok","revision":"2025-11-25","tools":3}`,
		`{"name":"none","transport":"http","status":"ok","revision":"2025-06-18"}`,
		`{"name":"listfails","transport":"http","status":"unreachable","revision":"2025-11-25","error":"bad list"}`,
		`{"name":"down","transport":"http","status":"unreachable","error":"cannot reach down"}`,
		`{"name":"bad","transport":"stdio","status":"","error":"bad entry"}`,
		`{"name":"stopped","transport":"stdio","status":"unreachable","error":"interrupted"}`,
	} {
		r := rows[i]
		if (r.MS != nil) != (i != 4) {
			t.Errorf("row %d: ms %v", i, r.MS)
		}
		r.MS = nil
		if b, _ := json.Marshal(r); string(b) != want {
			t.Errorf("row %d: %s\nwant   %s", i, b, want)
		}
	}
}
