package transport

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcpc-dev/mcpc/internal/memtest"
)

// A holder reads what an invocation sends within the message limit: a
// line that never ends is refused once it passes the limit, having read
// little more than that and held no more.
func TestMessageReaderEndlessLine(t *testing.T) {
	const limit = 1 << 20
	const total = 1 << 40 // never reached
	src := &endless{unit: []byte("a"), n: total}
	r := NewMessageReader(io.NopCloser(src), limit)
	var err error
	alloc := memtest.Allocated(func() { _, err = r.Read() })
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("err = %v, want ErrTooLarge", err)
	}
	if read := total - src.n; read > limit+128<<10 {
		t.Errorf("read %d bytes of an endless line with a %d limit", read, limit)
	}
	if alloc > 4*limit {
		t.Errorf("allocated %d bytes for a %d limit", alloc, limit)
	}
}

// Deep nesting, an empty batch, JSON that is no message: each is an
// error, never a hang or a panic.
func TestMessageReaderHostile(t *testing.T) {
	for name, in := range map[string]string{
		"deep":        strings.Repeat("[", 20000) + "\n",
		"empty batch": "[]\n",
		"not json":    "hello\n",
		"no message":  `{"a":1}` + "\n",
	} {
		t.Run(name, func(t *testing.T) {
			r := NewMessageReader(io.NopCloser(strings.NewReader(in)), 1<<20)
			if msgs, err := r.Read(); err == nil {
				t.Fatalf("Read = %v, want an error", msgs)
			}
		})
	}
	r := NewMessageReader(io.NopCloser(strings.NewReader("\n\n"+`{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n")), 1<<20)
	msgs, err := r.Read()
	if err != nil || len(msgs) != 1 || msgs[0].(*jsonrpc.Request).Method != "ping" {
		t.Fatalf("Read = %v, %v; want the ping", msgs, err)
	}
}

// A socket path too long for a socket address is reached through its
// directory on Linux, and named in an error elsewhere.
func TestSocketLongPath(t *testing.T) {
	dir := t.TempDir()
	for len(dir) < 120 {
		dir = filepath.Join(dir, "a-long-directory-name")
	}
	if err := mkdirAll(dir); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "s.sock")
	ln, err := ListenSocket(path)
	if err != nil {
		if strings.Contains(err.Error(), "XDG_RUNTIME_DIR") {
			t.Skip(err)
		}
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		if c, err := ln.Accept(); err == nil {
			c.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n"))
			c.Close()
		}
	}()
	c, err := DialUnix(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := NewMessageReader(c, 1<<10).Read()
	if err != nil || len(msgs) != 1 {
		t.Fatalf("Read = %v, %v", msgs, err)
	}
}

func FuzzMessageReader(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n"))
	f.Add([]byte(`[{"jsonrpc":"2.0","method":"notifications/initialized"}]` + "\n"))
	f.Add([]byte("[[[[\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		r := NewMessageReader(io.NopCloser(strings.NewReader(string(in))), 4<<10)
		for range 64 {
			if _, err := r.Read(); err != nil {
				return
			}
		}
	})
}

func mkdirAll(dir string) error { return os.MkdirAll(dir, 0o700) }

// TestWatchSocket: the watch ends once the socket's file is removed, or
// another file takes its place, and not while it stays.
func TestWatchSocket(t *testing.T) {
	for _, replace := range []bool{false, true} {
		path := filepath.Join(t.TempDir(), "s.sock")
		ln, err := ListenSocket(path)
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		gone := WatchSocket(ctx, path)
		if !replace && WaitFor(gone, socketCheck*3/2) {
			t.Fatal("the watch ended while the socket was there")
		}
		os.Remove(path)
		if replace {
			ln2, err := ListenSocket(path)
			if err != nil {
				t.Fatal(err)
			}
			defer ln2.Close()
		}
		if !WaitFor(gone, 30*time.Second) {
			t.Fatalf("the watch did not end once the socket was removed (replaced: %v)", replace)
		}
	}
}
