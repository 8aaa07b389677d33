//go:build !linux && !(darwin && cgo)

package creds

import (
	"context"
	"runtime"
)

// OSStore is a keyring that is never there: this platform (or a macOS build
// without cgo) has no keyring implementation, and mcpc does not fall back
// to plaintext files.
func OSStore(func(string) string) Store { return noStore{} }

type noStore struct{}

func (noStore) err() error {
	return unavailable(nil, "mcpc has no keyring support on %s/%s in this build", runtime.GOOS, runtime.GOARCH)
}

func (s noStore) Get(context.Context, string) ([]byte, error) { return nil, s.err() }
func (s noStore) Put(context.Context, string, string, map[string]string, []byte) error {
	return s.err()
}
func (s noStore) Delete(context.Context, string) error { return s.err() }
