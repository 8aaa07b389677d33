package creds

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/mcpc-dev/mcpc/internal/fail"
)

func TestKeyForDependsOnEverySetting(t *testing.T) {
	type settings struct{ ClientID string }
	base := KeyFor("prod", "https://mcp.example.com/mcp", settings{"a"})
	if base != KeyFor("prod", "https://mcp.example.com/mcp", settings{"a"}) {
		t.Fatal("the key is not stable")
	}
	for _, other := range []string{
		KeyFor("staging", "https://mcp.example.com/mcp", settings{"a"}),
		KeyFor("prod", "https://other.example.com/mcp", settings{"a"}),
		KeyFor("prod", "https://mcp.example.com/mcp", settings{"b"}),
	} {
		if other == base {
			t.Fatalf("two different servers share the key %s", base)
		}
	}
}

func TestLoadSaveDelete(t *testing.T) {
	ctx := context.Background()
	st := NewMemStore()
	ref := RefFor("prod", "https://mcp.example.com/mcp", "mcpc login prod", nil)
	_, err := Load(ctx, st, ref)
	if e := fail.As(err); e == nil || e.Code != fail.AuthRequired || e.Msg != "not logged in to prod" || e.Hint != "mcpc login prod" {
		t.Fatalf("Load of a missing record: %#v", err)
	}
	now := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	if err := Save(ctx, st, ref, &Record{AccessToken: "at", Expiry: now.Add(time.Hour)}, now); err != nil {
		t.Fatal(err)
	}
	r, err := Load(ctx, st, ref)
	if err != nil || r.AccessToken != "at" || r.Server != "prod" || r.Stale(now) || !r.Stale(now.Add(59*time.Minute+31*time.Second)) {
		t.Fatalf("Load after Save: %+v, %v", r, err)
	}
	locks := t.TempDir()
	if prev, had, err := Delete(ctx, st, locks, ref); !had || err != nil || prev == nil || prev.AccessToken != "at" {
		t.Fatalf("Delete: %+v, %v, %v", prev, had, err)
	}
	if prev, had, err := Delete(ctx, st, locks, ref); had || err != nil || prev != nil {
		t.Fatalf("second Delete: %+v, %v, %v", prev, had, err)
	}
	st.Recs()["x"] = []byte("not json")
	_, err = Load(ctx, st, Ref{Key: "x", Server: "prod", Login: "mcpc login prod"})
	if e := fail.As(err); e == nil || e.Msg != "the stored credentials for prod are unreadable" {
		t.Fatalf("Load of garbage: %v", err)
	}
}

func TestBoundedKeyringCall(t *testing.T) {
	old := storeTimeout
	storeTimeout = 50 * time.Millisecond
	defer func() { storeTimeout = old }()
	block := make(chan struct{})
	defer close(block)
	_, err := bounded(context.Background(), "read", func() (int, error) { <-block; return 0, nil })
	if e := fail.As(err); e == nil || e.Code != fail.Timeout || e.Hint != UnavailableHint {
		t.Fatalf("a hanging keyring: %v", err)
	}
	// The timeout bounds a record of many parts as a whole.
	_, err = partedStore{items: blockingItems(block)}.Get(context.Background(), "k")
	if e := fail.As(err); e == nil || e.Code != fail.Timeout {
		t.Fatalf("a hanging keyring of parts: %v", err)
	}
	_, err = bounded(context.Background(), "read", func() (int, error) { return 0, errors.New("boom") })
	if err == nil || err.Error() != "boom" {
		t.Fatalf("an error passes through: %v", err)
	}
}

// counting counts the reads that reach the store.
type counting struct {
	Store
	gets int
}

func (c *counting) Get(ctx context.Context, key string) ([]byte, error) {
	c.gets++
	return c.Store.Get(ctx, key)
}

// A StickyStore asks again after a missing record, but not after a
// failure: that failure answers every later read.
func TestStickyStore(t *testing.T) {
	ctx := context.Background()
	mem := NewMemStore()
	inner := &counting{Store: mem}
	s := StickyStore(inner)
	for range 2 {
		if _, err := s.Get(ctx, "k"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("missing record: %v", err)
		}
	}
	locked := errors.New("the keyring is locked")
	mem.Err = locked
	for range 3 {
		if _, err := s.Get(ctx, "k"); err != locked {
			t.Fatalf("after a failure: %v", err)
		}
	}
	if inner.gets != 3 {
		t.Errorf("%d reads reached the store, want 3", inner.gets)
	}
}
