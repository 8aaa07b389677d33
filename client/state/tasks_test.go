package state

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// A record outlives its task's ttl by a grace period, then is dropped (a
// settled one a grace period after its task started); a
// task without a ttl keeps its record.
func TestTaskRecordsPruneExpired(t *testing.T) {
	m, _ := testMemo(t)
	store := m.Tasks("k")
	old := time.Now().Add(-recordGrace - time.Hour)
	for _, r := range []*TaskRecord{
		{TaskID: "fresh", At: time.Now(), TTLMs: 1000},
		{TaskID: "gone", At: old, TTLMs: 1000},
		{TaskID: "forever", At: old},
		{TaskID: "settled", At: old, Settled: true},
		{TaskID: "settled-today", At: time.Now(), Settled: true},
	} {
		if err := store.Put(r); err != nil {
			t.Fatal(err)
		}
	}
	var ids []string
	for _, r := range store.List() {
		ids = append(ids, r.TaskID)
	}
	if len(ids) != 3 || ids[0] != "forever" || ids[1] != "fresh" || ids[2] != "settled-today" {
		t.Fatalf("records = %v", ids)
	}
	if store.Get("gone") != nil {
		t.Fatal("the expired record is still there")
	}
}

// Records are kept per server, found by id, changed in place and removed;
// without a memo nothing is stored and nothing found.
func TestTaskStore(t *testing.T) {
	m, stateDir := testMemo(t)
	store := m.Tasks("k")
	if want := filepath.Join(stateDir, "tasks", "k"); store.Dir != want {
		t.Fatalf("Dir = %s, want %s", store.Dir, want)
	}
	if err := store.Put(&TaskRecord{TaskID: "t/1", Tool: "slow", SessionID: "s-1", At: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if m.Tasks("other").Get("t/1") != nil || len(m.Tasks("other").List()) != 0 {
		t.Fatal("another server's store sees the record")
	}
	store.MarkCancelled("t/1")
	store.Settle("t/1")
	store.Settle("none") // no record: stays none
	r := store.Get("t/1")
	if r == nil || !r.Cancelled || !r.Settled || r.Tool != "slow" || r.SessionID != "s-1" {
		t.Fatalf("record = %+v", r)
	}
	if store.Get("none") != nil {
		t.Fatal("Settle made a record")
	}
	if st, err := os.Stat(store.path("t/1")); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("record file: %v %v", st, err)
	}
	store.Remove("t/1")
	if store.Get("t/1") != nil || len(store.List()) != 0 {
		t.Fatal("the record survived Remove")
	}
	// The writes locked the store, with one lock file for it in the
	// state's locks directory, none among the records.
	if locks, _ := filepath.Glob(filepath.Join(stateDir, "locks", "*.lock")); len(locks) != 1 {
		t.Errorf("lock files: %v", locks)
	}
	if left, _ := os.ReadDir(store.Dir); len(left) != 0 {
		t.Errorf("left in the store: %v", left)
	}

	var none *Tasks = (*Memo)(nil).Tasks("k")
	if none != nil || none.Put(&TaskRecord{TaskID: "x"}) != nil || none.Get("x") != nil || none.List() != nil {
		t.Fatal("a nil store stored something")
	}
	none.Settle("x")
	none.MarkCancelled("x")
	none.Remove("x")
}

// A symlink planted in the state directory is neither read nor written
// through.
func TestTaskStoreRefusesSymlinks(t *testing.T) {
	m, _ := testMemo(t)
	store := m.Tasks("k")
	elsewhere := filepath.Join(t.TempDir(), "record.json")
	if err := os.WriteFile(elsewhere, []byte(`{"taskId":"t-1","tool":"planted","at":"2026-11-30T12:00:00Z"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(store.Dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, store.path("t-1")); err != nil {
		t.Fatal(err)
	}
	if r := store.Get("t-1"); r != nil {
		t.Fatalf("read through the link: %+v", r)
	}
	if err := store.Put(&TaskRecord{TaskID: "t-1", Tool: "mine"}); err == nil {
		t.Fatal("wrote through the link")
	}
	if b, _ := os.ReadFile(elsewhere); string(b) != `{"taskId":"t-1","tool":"planted","at":"2026-11-30T12:00:00Z"}` {
		t.Fatalf("the link's target changed: %s", b)
	}
}

// Two invocations changing different fields of the same records at once
// (mcpc task cancel marking them cancelled while mcpc task result settles
// them) both keep their change: each re-reads the record under its lock.
func TestTaskUpdatesConcurrentKeepBoth(t *testing.T) {
	m, _ := testMemo(t)
	const n = 20
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("t-%d", i)
		if err := m.Tasks("k").Put(&TaskRecord{TaskID: ids[i], Tool: "slow", At: time.Now()}); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range ids {
		// Both start on the record at once, each with a store of its own
		// as another invocation has, so that both read it before either
		// writes unless the lock keeps one waiting.
		start := make(chan struct{})
		var wg sync.WaitGroup
		for _, change := range []func(*Tasks, string){(*Tasks).MarkCancelled, (*Tasks).Settle} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				store := m.Tasks("k")
				<-start
				change(store, id)
			}()
		}
		close(start)
		wg.Wait()
	}
	var lost []string
	for _, id := range ids {
		if r := m.Tasks("k").Get(id); r == nil || !r.Cancelled || !r.Settled || r.Tool != "slow" {
			lost = append(lost, fmt.Sprintf("%s: %+v", id, r))
		}
	}
	if len(lost) > 0 {
		t.Fatalf("%d of %d records lost a change:\n%s", len(lost), n, strings.Join(lost, "\n"))
	}
}

// Settling or cancelling a task mcpc does not remember (a call followed to
// its end, a task in tasks/list) reads, never locks: no lock file appears.
func TestTaskSetUnknownTakesNoLock(t *testing.T) {
	m, _ := testMemo(t)
	store := m.Tasks("k")
	store.Settle("never-kept")
	store.MarkCancelled("never-kept")
	if _, err := os.Stat(store.Locks); !os.IsNotExist(err) {
		t.Fatalf("a lock was taken for a task with no record (%v)", err)
	}
	if err := store.Put(&TaskRecord{TaskID: "kept", At: time.Now()}); err != nil {
		t.Fatal(err)
	}
	store.Settle("kept")
	if r := store.Get("kept"); r == nil || !r.Settled {
		t.Fatalf("record = %+v, want settled", r)
	}
}
