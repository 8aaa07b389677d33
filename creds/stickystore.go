package creds

import (
	"context"
	"errors"
	"sync"
)

// StickyStore wraps a Store so that, once a read fails other than for a
// missing record, every later read answers with that failure without
// asking: a keyring that fails (one that never answers costs its bound
// each time) is asked once by a command that reads many records, such as
// mcpc list's auth column.
func StickyStore(s Store) Store { return &stickyStore{Store: s} }

type stickyStore struct {
	Store
	mu  sync.Mutex
	err error
}

func (s *stickyStore) Get(ctx context.Context, key string) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return nil, s.err
	}
	b, err := s.Store.Get(ctx, key)
	if err != nil && !errors.Is(err, ErrNotFound) {
		s.err = err
	}
	return b, err
}
