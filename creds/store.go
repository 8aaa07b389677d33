package creds

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/mcpc-dev/mcpc/internal/fail"
)

// Store keeps opaque records by key. Every call is bounded by the store's
// own timeout as well as by ctx: a keyring that hangs (a prompt nobody can
// answer, a wedged daemon) must not hang mcpc.
type Store interface {
	// Get returns the record stored under key, or ErrNotFound.
	Get(ctx context.Context, key string) ([]byte, error)
	// Put creates or replaces the record under key. label is shown by
	// keyring tools; attrs are searchable, never secret.
	Put(ctx context.Context, key, label string, attrs map[string]string, data []byte) error
	// Delete removes the record; a missing record is ErrNotFound.
	Delete(ctx context.Context, key string) error
}

// readier is a Store that can tell, before a login starts, whether it will
// be able to keep the result (an unlocked keyring).
type readier interface {
	Ready(ctx context.Context) error
}

// ErrNotFound says no record is stored under the key.
var ErrNotFound = errors.New("no stored credentials")

// storeTimeout bounds one keyring call.
var storeTimeout = 10 * time.Second

// UnavailableHint is what to do when there is no usable keyring: the two
// ways to authenticate that need none.
const UnavailableHint = `without a keyring, give the server a token with "bearerTokenEnv" (or --bearer-env VAR), or use "auth": {"type": "client_credentials"}`

// unavailable is the error for a keyring that cannot be used. mcpc never
// falls back to a plaintext file, so this ends the invocation.
func unavailable(err error, format string, args ...any) error {
	return fail.Wrap(fail.AuthRequired, err, UnavailableHint, format, args...)
}

// bounded runs f with the store timeout and ctx; when either ends first
// the call is abandoned (its goroutine finishes on its own later: D-Bus
// calls have their own, longer, limit).
func bounded[T any](ctx context.Context, what string, f func() (T, error)) (T, error) {
	type result struct {
		v   T
		err error
	}
	ch := make(chan result, 1)
	go func() {
		v, err := f()
		ch <- result{v, err}
	}()
	t := time.NewTimer(storeTimeout)
	defer t.Stop()
	var zero T
	select {
	case r := <-ch:
		return r.v, r.err
	case <-t.C:
		return zero, fail.New(fail.Timeout, UnavailableHint, "the keyring did not answer within %s (%s)", storeTimeout, what)
	case <-ctx.Done():
		return zero, ctx.Err()
	}
}

// KeyFor derives a record's key from everything that decides which
// credentials are valid: the server's name, its endpoint and its OAuth
// settings. Changing any of them asks for a new login instead of sending
// old tokens somewhere new.
func KeyFor(server, endpoint string, settings any) string {
	b, _ := json.Marshal(settings)
	h := sha256.New()
	fmt.Fprintf(h, "mcpc-credentials-v1\x00%s\x00%s\x00%s", server, endpoint, b)
	return hex.EncodeToString(h.Sum(nil))[:32]
}

// MemStore is an in-memory Store for unit tests.
type MemStore struct {
	mu   sync.Mutex
	recs map[string][]byte
	// Err, when set, is returned by every call: a keyring that fails.
	Err error
}

// NewMemStore returns an empty MemStore.
func NewMemStore() *MemStore { return &MemStore{recs: map[string][]byte{}} }

func (m *MemStore) Get(_ context.Context, key string) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.Err != nil {
		return nil, m.Err
	}
	b, ok := m.recs[key]
	if !ok {
		return nil, ErrNotFound
	}
	return append([]byte(nil), b...), nil
}

func (m *MemStore) Put(_ context.Context, key, _ string, _ map[string]string, data []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.Err != nil {
		return m.Err
	}
	m.recs[key] = append([]byte(nil), data...)
	return nil
}

func (m *MemStore) Delete(_ context.Context, key string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.Err != nil {
		return m.Err
	}
	if _, ok := m.recs[key]; !ok {
		return ErrNotFound
	}
	delete(m.recs, key)
	return nil
}

// Recs exposes the records, for tests that plant one.
func (m *MemStore) Recs() map[string][]byte { return m.recs }
