package state

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpc-dev/mcpc/internal/memtest"
)

// testMemo is a memo under a fresh directory, and mcpc's state directory
// in it.
func testMemo(t testing.TB) (m *Memo, stateDir string) {
	dir := t.TempDir()
	stateDir = filepath.Join(dir, "state")
	return NewMemo(stateDir, filepath.Join(dir, "cache")), stateDir
}

// A credential's name in cache files is keyed with a private per-user
// secret: stable for one user, not a plain hash of the token.
func TestCredentialKeyIsKeyed(t *testing.T) {
	m, stateDir := testMemo(t)
	a, b := m.CredentialKey("Bearer tok"), m.CredentialKey("Bearer tok")
	if a != b || a == HashKey("credential", "Bearer tok") || a == m.CredentialKey("Bearer other") {
		t.Fatalf("keys %q %q", a, b)
	}
	st, err := os.Stat(filepath.Join(stateDir, "cache-key"))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("cache-key: %v %v", st, err)
	}
	if strings.Contains(a, "tok") || NewMemo(stateDir, t.TempDir()).CredentialKey("Bearer tok") != a {
		t.Fatal("key not stable across invocations")
	}
}

// A cached result comes back byte for byte while fresh; a stale, broken or
// incomplete entry is a miss.
func TestCachedEntries(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	m, _ := testMemo(t)
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
	_, stateDir := testMemo(t)
	keys := make([]string, 20)
	var wg sync.WaitGroup
	for i := range keys {
		wg.Add(1)
		go func() {
			defer wg.Done()
			keys[i] = NewMemo(stateDir, t.TempDir()).CredentialKey("Bearer tok")
		}()
	}
	wg.Wait()
	for i, k := range keys {
		if k != keys[0] || k == HashKey("credential", "Bearer tok") {
			t.Fatalf("invocation %d got key %s, invocation 0 %s (unsalted: %s)", i, k, keys[0], HashKey("credential", "Bearer tok"))
		}
	}
	if left, _ := filepath.Glob(filepath.Join(stateDir, ".cache-key.tmp-*")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// A cache entry or era record that is a symlink was planted: it is not
// followed, even to a valid record.
func TestMemoDoesNotFollowSymlinks(t *testing.T) {
	m, _ := testMemo(t)
	m.Store("srv", "real", 60000, json.RawMessage(`{"tools":[]}`))
	m.SetEra("real", &EraRecord{Version: "2026-07-28", Verdict: VerdictProbe})
	if m.Cached("srv", "real") == nil || m.Era("real") == nil {
		t.Fatal("the real records are not read")
	}
	if err := os.Symlink("real.json", filepath.Join(m.CacheDir, "srv", "linked.json")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real.json", filepath.Join(m.EraDir, "linked.json")); err != nil {
		t.Fatal(err)
	}
	if got := m.Cached("srv", "linked"); got != nil {
		t.Errorf("cached entry read through a link: %s", got)
	}
	if got := m.Era("linked"); got != nil {
		t.Errorf("era read through a link: %+v", got)
	}
}

// A large cached list is written around its record and read back where
// it lies: json.Marshal copied it into a buffer grown by doubling, and
// GetManyBytes copied it again to read three fields (a 30 MB list cost
// more than twice itself each way).
func TestCachedLargeListNotCopied(t *testing.T) {
	m, _ := testMemo(t)
	var b strings.Builder
	b.WriteString(`{"tools":[`)
	for i := range 40000 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"name":"tool","inputSchema":{"type":"object","properties":{"query":{"type":"string"}}}}`)
	}
	b.WriteString(`],"ttlMs":60000}`)
	res := json.RawMessage(b.String())
	stored := memtest.Allocated(func() { m.Store("srv", "tools-list", 60000, res) })
	var got json.RawMessage
	read := memtest.Allocated(func() { got = m.Cached("srv", "tools-list") })
	if string(got) != string(res) {
		t.Fatalf("the cached list (%d bytes) is not the list stored (%d bytes)", len(got), len(res))
	}
	size := uint64(len(res))
	if stored > size/4 {
		t.Errorf("storing a %d-byte list allocated %d bytes, want at most %d", size, stored, size/4)
	}
	// The file is read once (its size and a little).
	if read > size+size/4 {
		t.Errorf("reading a %d-byte list back allocated %d bytes, want at most %d", size, read, size+size/4)
	}
}
