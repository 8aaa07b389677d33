package client

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpc-dev/mcpc/client/config"
)

// EachServer visits every entry but the nil ones, never more than
// parallel at once; a failed open reaches visit as err with no session,
// and each session is closed after its visit, whose context open bounds.
func TestEachServer(t *testing.T) {
	entries := make([]*config.Entry, 9)
	for i := range entries {
		if i != 4 {
			entries[i] = &config.Entry{Name: string(rune('a' + i))}
		}
	}
	failed := errors.New("cannot start c")
	var running, most, closed atomic.Int32
	var mu sync.Mutex
	got := map[int]string{}
	open := func(_ context.Context, e *config.Entry) (string, func(), time.Duration, error) {
		if e.Name == "c" {
			return "", nil, 0, failed
		}
		return e.Name, func() { closed.Add(1) }, time.Hour, nil
	}
	visit := func(ctx context.Context, i int, _ time.Time, sess string, err error) {
		n := running.Add(1)
		defer running.Add(-1)
		for {
			m := most.Load()
			if n <= m || most.CompareAndSwap(m, n) {
				break
			}
		}
		time.Sleep(time.Millisecond)
		if _, ok := ctx.Deadline(); err == nil && !ok {
			t.Errorf("entry %d: visit's context has no deadline", i)
		}
		mu.Lock()
		defer mu.Unlock()
		switch {
		case errors.Is(err, failed) && sess == "":
			got[i] = "failed"
		case err == nil:
			got[i] = sess
		default:
			got[i] = "unexpected: " + err.Error()
		}
	}
	EachServer(context.Background(), entries, 3, open, visit)
	want := map[int]string{0: "a", 1: "b", 2: "failed", 3: "d", 5: "f", 6: "g", 7: "h", 8: "i"}
	if len(got) != len(want) {
		t.Errorf("visited %v, want %v", got, want)
	}
	for i, w := range want {
		if got[i] != w {
			t.Errorf("entry %d: %q, want %q", i, got[i], w)
		}
	}
	if m := most.Load(); m > 3 {
		t.Errorf("%d visits at once, want at most 3", m)
	}
	if c := closed.Load(); c != 7 {
		t.Errorf("%d sessions closed, want 7", c)
	}
}

// Once the invocation has ended, an entry whose turn comes is not opened:
// its visit gets the context's error.
func TestEachServerAfterTheEnd(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var opened, visited atomic.Int32
	open := func(context.Context, *config.Entry) (int, func(), time.Duration, error) {
		opened.Add(1)
		return 1, func() {}, time.Second, nil
	}
	EachServer(ctx, []*config.Entry{{Name: "a"}, {Name: "b"}}, 1, open, func(_ context.Context, _ int, _ time.Time, sess int, err error) {
		if !errors.Is(err, context.Canceled) || sess != 0 {
			t.Errorf("visit got %d, %v; want 0, context.Canceled", sess, err)
		}
		visited.Add(1)
	})
	if opened.Load() != 0 || visited.Load() != 2 {
		t.Errorf("opened %d, visited %d; want 0, 2", opened.Load(), visited.Load())
	}
}
