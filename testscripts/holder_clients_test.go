//go:build unix

package testscripts

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/mcpc-dev/mcpc/client/transport"
)

// holderSocket is the socket of the session whose record is at the
// script's path rec.
func holderSocket(ts *testscript.TestScript, rec string) string {
	data, err := os.ReadFile(ts.MkAbs(rec))
	ts.Check(err)
	var r struct {
		Socket string `json:"socket"`
	}
	ts.Check(json.Unmarshal(data, &r))
	if r.Socket == "" {
		ts.Fatalf("%s names no socket", rec)
	}
	return r.Socket
}

// forge RECORD ID [GOFILE]: a raw client of the session whose record is
// RECORD answers a question the server asked another invocation. It
// attaches (a status request, answered); with GOFILE it creates it (the
// script's server asks once it exists) and waits for the server's next
// log message (which the holder routes after the question it follows).
// Then it sends an answer with the question's id ID (JSON) and waits for
// the answer to a second status request: by then the holder has dealt
// with the forgery.
func cmdForge(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 || len(args) > 3 {
		ts.Fatalf("usage: forge RECORD ID [GOFILE]")
	}
	c, err := transport.DialUnix(context.Background(), holderSocket(ts, args[0]))
	ts.Check(err)
	defer c.Close()
	c.SetDeadline(time.Now().Add(60 * time.Second)) // a hang guard
	r := bufio.NewReader(c)
	send := func(line string) {
		_, err := io.WriteString(c, line+"\n")
		ts.Check(err)
	}
	// until reads the holder's messages until one has field key equal to
	// want (JSON).
	until := func(key, want string) {
		for {
			line, err := r.ReadBytes('\n')
			if err != nil {
				ts.Fatalf("forge: no message with %s %s from the holder: %v", key, want, err)
			}
			var m map[string]json.RawMessage
			if json.Unmarshal(line, &m) == nil && string(m[key]) == want {
				return
			}
		}
	}
	send(`{"jsonrpc":"2.0","id":"forge-1","method":"mcpc/session/status","params":{}}`)
	until("id", `"forge-1"`)
	if len(args) == 3 {
		ts.Check(os.WriteFile(ts.MkAbs(args[2]), nil, 0o600))
		until("method", `"notifications/message"`)
	}
	send(`{"jsonrpc":"2.0","id":` + args[1] + `,"result":{"action":"decline"}}`)
	send(`{"jsonrpc":"2.0","id":"forge-2","method":"mcpc/session/status","params":{}}`)
	until("id", `"forge-2"`)
}

// silentConns are the connections silent opened, by script.
var silentConns sync.Map // *testscript.TestScript → *silence

type silence struct {
	open  atomic.Int64 // not yet closed by the holder
	conns []net.Conn
}

// silent RECORD N: open N connections to the socket of the session whose
// record is RECORD and send nothing on them; they stay open until the
// script ends. silent -closed: wait (a hang guard of 60s) until the
// holder has closed every one, and print how many it closed.
func cmdSilent(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 || args[0] != "-closed" && len(args) != 2 {
		ts.Fatalf("usage: silent RECORD N | silent -closed")
	}
	if args[0] == "-closed" {
		v, ok := silentConns.Load(ts)
		if !ok {
			ts.Fatalf("silent -closed: no silent connections were opened")
		}
		s := v.(*silence)
		for deadline := time.Now().Add(60 * time.Second); s.open.Load() > 0; time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				ts.Fatalf("%d of %d silent connections still open after 60s", s.open.Load(), len(s.conns))
			}
		}
		fmt.Fprintf(ts.Stdout(), "%d closed\n", len(s.conns))
		return
	}
	n, err := strconv.Atoi(args[1])
	ts.Check(err)
	path := holderSocket(ts, args[0])
	s := &silence{}
	silentConns.Store(ts, s)
	ts.Defer(func() {
		for _, c := range s.conns {
			c.Close()
		}
		silentConns.Delete(ts)
	})
	for range n {
		c, err := transport.DialUnix(context.Background(), path)
		ts.Check(err)
		s.conns = append(s.conns, c)
		s.open.Add(1)
		go func() {
			// Nothing comes but the end: the holder's close, or ours.
			c.Read(make([]byte, 1))
			s.open.Add(-1)
		}()
	}
}
