package client

import (
	"bytes"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpc-dev/mcpc/client/sessions"
	"github.com/mcpc-dev/mcpc/client/transport"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// testSessions is a store in a temporary directory whose notes go to the
// returned buffer.
func testSessions(t *testing.T) (*sessions.Sessions, *bytes.Buffer) {
	t.Helper()
	notes := new(bytes.Buffer)
	dir := t.TempDir()
	return &sessions.Sessions{Store: sessions.SessionStore(dir, ""), Cwd: dir, Notes: notes,
		Now: func() time.Time { return time.Date(2026, 1, 1, 0, 1, 0, 0, time.UTC) }}, notes
}

// answering serves the socket at path with a holder that answers every request at once, and counts the
// connections it was handed.
func answering(t *testing.T, path string) *atomic.Int64 {
	t.Helper()
	ln, err := transport.ListenSocket(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	n := new(atomic.Int64)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			n.Add(1)
			go func() {
				defer c.Close()
				msgs, err := transport.NewMessageReader(c, 1<<20).Read()
				if err != nil || len(msgs) != 1 {
					return
				}
				data, _ := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: msgs[0].(*jsonrpc.Request).ID, Result: []byte(`{"requests":7}`)})
				c.Write(append(data, '\n'))
			}()
		}
	}()
	return n
}
