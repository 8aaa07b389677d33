package client

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpc-dev/mcpc/client/config"
)

// A credential's name in cache files is keyed with a private per-user
// secret: stable for one user, not a plain hash of the token.
func TestCredentialKeyIsKeyed(t *testing.T) {
	dirs := config.DirsFrom(func(k string) string { return map[string]string{"HOME": t.TempDir()}[k] })
	m := NewMemo(dirs)
	a, b := m.credentialKey("Bearer tok"), m.credentialKey("Bearer tok")
	if a != b || a == hashKey("credential", "Bearer tok") || a == m.credentialKey("Bearer other") {
		t.Fatalf("keys %q %q", a, b)
	}
	st, err := os.Stat(filepath.Join(dirs.State, "cache-key"))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("cache-key: %v %v", st, err)
	}
	if strings.Contains(a, "tok") || NewMemo(dirs).credentialKey("Bearer tok") != a {
		t.Fatal("key not stable across invocations")
	}
}

// A cached result comes back byte for byte while fresh; a stale, broken or
// incomplete entry is a miss.
func TestCachedEntries(t *testing.T) {
	dirs := config.DirsFrom(func(k string) string { return map[string]string{"HOME": t.TempDir()}[k] })
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	m := NewMemo(dirs)
	m.Now = func() time.Time { return now }
	res := json.RawMessage(`{"tools":[{"name":"echo","inputSchema":{"type":"object"}}],"ttlMs":1000}`)
	m.Store("srv", "tools-list", 1000, res)
	if got := m.Cached("srv", "tools-list"); string(got) != string(res) {
		t.Fatalf("fresh entry: got %s", got)
	}
	now = now.Add(time.Second)
	if got := m.Cached("srv", "tools-list"); got != nil {
		t.Errorf("stale entry: got %s", got)
	}
	now = now.Add(-time.Second)
	file := filepath.Join(m.CacheDir, "srv", "tools-list.json")
	for _, bad := range []string{
		`{"at":"2026-11-30T12:00:00Z","ttlMs":1000,"result":{"tools":[}`,
		`{"at":"2026-11-30T12:00:00Z","ttlMs":1000}`,
		`{"at":"noon","ttlMs":1000,"result":{}}`,
		`{"at":"2026-11-30T12:00:00Z","ttlMs":"1000","result":{}}`,
		``,
	} {
		if err := os.WriteFile(file, []byte(bad), 0o600); err != nil {
			t.Fatal(err)
		}
		if got := m.Cached("srv", "tools-list"); got != nil {
			t.Errorf("%q: got %s, want a miss", bad, got)
		}
	}
}

// Invocations creating the cache key at the same moment agree on it: the
// key file appears whole or not at all.
func TestCredentialKeyConcurrentFirstUse(t *testing.T) {
	dirs := config.DirsFrom(func(k string) string { return map[string]string{"HOME": t.TempDir()}[k] })
	keys := make([]string, 20)
	var wg sync.WaitGroup
	for i := range keys {
		wg.Add(1)
		go func() {
			defer wg.Done()
			keys[i] = NewMemo(dirs).credentialKey("Bearer tok")
		}()
	}
	wg.Wait()
	for i, k := range keys {
		if k != keys[0] || k == hashKey("credential", "Bearer tok") {
			t.Fatalf("invocation %d got key %s, invocation 0 %s (unsalted: %s)", i, k, keys[0], hashKey("credential", "Bearer tok"))
		}
	}
	if left, _ := filepath.Glob(filepath.Join(dirs.State, ".tmp-key-*")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}
