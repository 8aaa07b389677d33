//go:build unix

package testscripts

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/mcpc-dev/mcpc/client/holdwire"
	"github.com/mcpc-dev/mcpc/client/transport"
)

// heldConns are the connections holdconns opened, by script: holdconns
// close lets them go before the script ends.
var heldConns sync.Map // *testscript.TestScript → *[]net.Conn

// socketAt is the one socket GLOB names (a session's, under the run
// directory: its name is a hash).
func socketAt(ts *testscript.TestScript, glob string) string {
	paths, err := filepath.Glob(ts.MkAbs(glob))
	ts.Check(err)
	if len(paths) != 1 {
		ts.Fatalf("%s names %d files, want one socket", glob, len(paths))
	}
	return paths[0]
}

// holdconns N GLOB [LINE]: open N connections to the socket GLOB names,
// each sent LINE (a request that stays in flight: the connection is an
// attached invocation the holder serves) or nothing, and keep them open
// until holdconns close or the script's end. A session's holder serves
// so many at once: the script sees what a full one looks like. With
// LINE it returns once the holder says it serves them all (its status
// counts N attached, or every slot taken) and has passed their N requests
// on, within 30s: a slot is taken when the connection is, its request
// counted only once read, and a script that pins the count must not see
// it halfway.
func cmdHoldConns(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("usage: holdconns N GLOB [LINE] | holdconns close")
	}
	if len(args) == 1 && args[0] == "close" {
		if v, ok := heldConns.LoadAndDelete(ts); ok {
			for _, c := range *v.(*[]net.Conn) {
				c.Close()
			}
		}
		return
	}
	if len(args) < 2 || len(args) > 3 {
		ts.Fatalf("usage: holdconns N GLOB [LINE] | holdconns close")
	}
	n, err := strconv.Atoi(args[0])
	if err != nil || n <= 0 {
		ts.Fatalf("holdconns: bad count %q", args[0])
	}
	path := socketAt(ts, args[1])
	v, loaded := heldConns.LoadOrStore(ts, new([]net.Conn))
	conns := v.(*[]net.Conn)
	if !loaded {
		ts.Defer(func() {
			if v, ok := heldConns.LoadAndDelete(ts); ok {
				for _, c := range *v.(*[]net.Conn) {
					c.Close()
				}
			}
		})
	}
	var base int64
	if len(args) == 3 {
		st, err := holderStatus(context.Background(), path)
		ts.Check(err)
		base = st.Requests
	}
	for range n {
		c, err := transport.DialUnix(context.Background(), path)
		ts.Check(err)
		*conns = append(*conns, c)
		if len(args) == 3 {
			_, err := io.WriteString(c, args[2]+"\n")
			ts.Check(err)
		}
	}
	if len(args) == 3 {
		awaitAttached(ts, path, n, base)
	}
}

// awaitAttached asks the holder at path for its status until it serves
// n attached invocations (or says it is full) and counts n requests more
// than base, within 30s.
func awaitAttached(ts *testscript.TestScript, path string, n int, base int64) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for ctx.Err() == nil {
		if st, err := holderStatus(ctx, path); err == nil && (st.Busy || st.Attached >= n) && st.Requests >= base+int64(n) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	ts.Fatalf("holdconns: the holder at %s did not serve %d invocations within 30s", path, n)
}

// holderStatus asks the holder at path its status on a connection of its
// own.
func holderStatus(ctx context.Context, path string) (holdwire.StatusResult, error) {
	var st holdwire.StatusResult
	c, err := transport.DialUnix(ctx, path)
	if err != nil {
		return st, err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(2 * time.Second))
	if _, err := io.WriteString(c, `{"jsonrpc":"2.0","id":1,"method":"`+holdwire.Status+`","params":{}}`+"\n"); err != nil {
		return st, err
	}
	line, err := bufio.NewReader(c).ReadBytes('\n')
	if err != nil {
		return st, err
	}
	var res struct {
		Result holdwire.StatusResult `json:"result"`
	}
	err = json.Unmarshal(line, &res)
	return res.Result, err
}

// sockspy GLOB LOG: stand in front of the socket GLOB names, passing
// every connection on to it and writing a line to LOG for each: a
// script counts the connections an invocation makes to a session's
// holder. The holder's socket is moved aside (GLOB.spied) while the spy
// listens in its place; the spy lasts until the script's end.
func cmdSockSpy(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: sockspy GLOB LOG")
	}
	path, log := socketAt(ts, args[0]), ts.MkAbs(args[1])
	real := path + ".spied"
	ts.Check(os.Rename(path, real))
	// The socket's path may be longer than an address: transport's
	// listen and dial reach it all the same.
	ln, err := transport.ListenSocket(path)
	ts.Check(err)
	// The listener's end ends the spy; a connection it passes on ends
	// with either side.
	ts.Defer(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			if f, err := os.OpenFile(log, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600); err == nil {
				f.WriteString("connection\n")
				f.Close()
			}
			go spyPass(c, real)
		}
	}()
}

// spyPass carries c to and from the socket at path until either ends.
func spyPass(c net.Conn, path string) {
	defer c.Close()
	up, err := transport.DialUnix(context.Background(), path)
	if err != nil {
		return
	}
	defer up.Close()
	done := make(chan struct{}, 2)
	pass := func(dst, src net.Conn) {
		io.Copy(dst, src)
		done <- struct{}{}
	}
	go pass(up, c)
	go pass(c, up)
	<-done
}
