//go:build unix

package sessions

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcpc-dev/mcpc/client/state"
	"github.com/mcpc-dev/mcpc/client/transport"
)

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

// TestAskHolderForeign: the probes of mcpc session (start, list, stop,
// keepAlive) talk to a session's socket only when it, and the directory
// it is in, belong to the user, as a call's connect does: a socket
// another user planted, or one in another user's directory, is never
// asked (nor told to stop).
func TestAskHolderForeign(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to give a file to another user")
	}
	const nobody = 65534
	for _, foreign := range []string{"socket", "directory"} {
		t.Run(foreign, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "run")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "s.sock")
			accepted := answering(t, path)
			owned := path
			if foreign == "directory" {
				owned = dir
			}
			if err := os.Chown(owned, nobody, nobody); err != nil {
				t.Fatal(err)
			}
			rec := &state.SessionRecord{Name: "pw", Socket: path}
			res, err := askHolder(context.Background(), rec, "mcpc/session/status")
			var fe *transport.ForeignSocketError
			if !errors.As(err, &fe) || fe.UID != nobody {
				t.Fatalf("askHolder = %s, %v; want a ForeignSocketError of uid %d", res, err, nobody)
			}
			if alive, _ := holderAlive(context.Background(), rec); alive {
				t.Error("holderAlive took another user's socket for a live holder")
			}
			if n := accepted.Load(); n != 0 {
				t.Errorf("the foreign socket was connected to %d times", n)
			}
		})
	}
}
