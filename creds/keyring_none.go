package creds

import "context"

// noStore is a keyring that is not there: every call, Ready first, is the
// exit-4 error with UnavailableHint, and mcpc does not fall back to
// plaintext files. reason says why there is none.
type noStore struct{ reason string }

func (s noStore) err() error { return unavailable(nil, "%s", s.reason) }

// Ready fails, so a login is refused before anyone approves it.
func (s noStore) Ready(context.Context) error { return s.err() }

func (s noStore) Get(context.Context, string) ([]byte, error) { return nil, s.err() }
func (s noStore) Put(context.Context, string, string, map[string]string, []byte) error {
	return s.err()
}
func (s noStore) Delete(context.Context, string) error { return s.err() }
