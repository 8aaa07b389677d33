//go:build linux

package creds

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	dbus "github.com/keybase/dbus"
	"github.com/keybase/go-keychain/secretservice"
)

// OSStore is the Linux Secret Service (GNOME Keyring, KWallet, KeePassXC …)
// reached over the D-Bus session bus, in pure Go so the build needs no cgo.
// getenv reads the bus address: without one there is no keyring, and mcpc
// must not let the D-Bus library autolaunch a bus (and a keyring daemon)
// that would outlive the invocation.
func OSStore(getenv func(string) string) Store {
	if getenv("DBUS_SESSION_BUS_ADDRESS") == "" {
		return noStore{"there is no keyring: DBUS_SESSION_BUS_ADDRESS is not set, so the Secret Service cannot be reached"}
	}
	return &secretStore{}
}

// attrApp marks mcpc's items so keyring tools can find them all.
const attrApp = "application"

// The connection is opened once per process and never closed (the library
// offers no Close); so is the encrypted session.
var (
	ssOnce    sync.Once
	ssService *secretservice.SecretService
	ssSession *secretservice.Session
	ssErr     error
	// ssMu serializes calls: the library's prompt handling is not safe
	// for concurrent use.
	ssMu sync.Mutex
)

type secretStore struct{}

// newSession replaces the encrypted session. The library derives the AES
// key from the DH shared secret without its leading zero bytes, unlike the
// Secret Service, so about one session in 256 has a key the service does
// not share: decryption then fails (GetSecret returns nil, nil) or the
// service refuses the item. A fresh key pair fixes that; callers retry
// with one.
func newSession() error {
	if ssSession != nil {
		ssService.CloseSession(ssSession)
	}
	sess, err := ssService.OpenSession(secretservice.AuthenticationDHAES)
	if err != nil {
		return unavailable(err, "cannot open a Secret Service session")
	}
	ssSession = sess
	return nil
}

// sessionTries bounds the retries with fresh sessions: three bad keys in a
// row happen once in 16 million.
const sessionTries = 3

func connect() (*secretservice.SecretService, *secretservice.Session, error) {
	ssOnce.Do(func() {
		svc, err := secretservice.NewService()
		if err != nil {
			ssErr = unavailable(err, "cannot reach the Secret Service (no D-Bus session bus)")
			return
		}
		sess, err := svc.OpenSession(secretservice.AuthenticationDHAES)
		if err != nil {
			ssErr = unavailable(err, "cannot open a Secret Service session")
			return
		}
		ssService, ssSession = svc, sess
	})
	return ssService, ssSession, ssErr
}

func searchAttrs(key string) secretservice.Attributes {
	return secretservice.Attributes{attrApp: "mcpc", "mcpc-key": key}
}

// call runs f on the shared connection, bounded and serialized.
func call[T any](ctx context.Context, s *secretStore, what string, f func(*secretservice.SecretService, *secretservice.Session) (T, error)) (T, error) {
	return bounded(ctx, what, func() (T, error) {
		ssMu.Lock()
		defer ssMu.Unlock()
		var zero T
		svc, sess, err := connect()
		if err != nil {
			return zero, err
		}
		return f(svc, sess)
	})
}

// usable turns the library's errors about the keyring itself (missing
// default collection, locked and no way to prompt) into exit-4 errors.
//
// The two message tests are the one place mcpc reads a library's text:
// go-keychain's secretservice package returns these two conditions as
// plain errors.New values ("... prompt ...", "... does not exist") with no
// type or sentinel to match, so the text is all the evidence there is. The
// typed cases are tried first.
func usable(err error, what string) error {
	if err == nil {
		return nil
	}
	var pd secretservice.PromptDismissedError
	if errors.As(err, &pd) || strings.Contains(err.Error(), "prompt") {
		return unavailable(err, "the keyring is locked and cannot be unlocked here (%s)", what)
	}
	var de dbus.Error
	if errors.As(err, &de) || strings.Contains(err.Error(), "does not exist") {
		return unavailable(err, "the keyring cannot %s (is there an unlocked default collection?)", what)
	}
	return unavailable(err, "the keyring cannot %s", what)
}

// search finds the record's items in the default collection. One retry:
// under many concurrent clients gnome-keyring has been seen to answer a
// search with "Object does not exist" for a collection path of its own
// once; a collection that is really missing fails twice.
func search(svc *secretservice.SecretService, key string) ([]dbus.ObjectPath, error) {
	items, err := svc.SearchCollection(secretservice.DefaultCollection, searchAttrs(key))
	if err != nil {
		time.Sleep(100 * time.Millisecond)
		items, err = svc.SearchCollection(secretservice.DefaultCollection, searchAttrs(key))
	}
	return items, err
}

func (s *secretStore) Get(ctx context.Context, key string) ([]byte, error) {
	return call(ctx, s, "read", func(svc *secretservice.SecretService, _ *secretservice.Session) ([]byte, error) {
		items, err := search(svc, key)
		if err != nil {
			return nil, usable(err, "search for credentials")
		}
		if len(items) == 0 {
			return nil, ErrNotFound
		}
		if err := svc.Unlock(items); err != nil {
			return nil, usable(err, "unlock the credentials")
		}
		for range sessionTries {
			b, err := svc.GetSecret(items[0], *ssSession)
			if err != nil {
				return nil, usable(err, "read the credentials")
			}
			if b != nil {
				return b, nil
			}
			// nil, nil: decryption failed (see newSession).
			if err := newSession(); err != nil {
				return nil, err
			}
		}
		return nil, unavailable(nil, "the keyring returned credentials that cannot be decrypted")
	})
}

func (s *secretStore) Put(ctx context.Context, key, label string, attrs map[string]string, data []byte) error {
	_, err := call(ctx, s, "write", func(svc *secretservice.SecretService, _ *secretservice.Session) (struct{}, error) {
		if err := svc.Unlock([]dbus.ObjectPath{secretservice.DefaultCollection}); err != nil {
			return struct{}{}, usable(err, "unlock the default collection")
		}
		all := map[string]string{}
		for k, v := range attrs {
			all[k] = v
		}
		for k, v := range searchAttrs(key) {
			all[k] = v
		}
		props := secretservice.NewSecretProperties(label, all)
		var err error
		for range sessionTries {
			var secret secretservice.Secret
			if secret, err = ssSession.NewSecret(data); err != nil {
				return struct{}{}, usable(err, "encrypt the credentials")
			}
			var item dbus.ObjectPath
			item, err = svc.CreateItem(secretservice.DefaultCollection, props, secret, secretservice.ReplaceBehaviorReplace)
			if err == nil {
				// Read it back: with a key the service does not share,
				// what it stored is not what was sent.
				if b, gerr := svc.GetSecret(item, *ssSession); gerr == nil && bytes.Equal(b, data) {
					return struct{}{}, nil
				}
				err = errors.New("the stored credentials do not read back as written")
			}
			if serr := newSession(); serr != nil {
				return struct{}{}, serr
			}
		}
		return struct{}{}, usable(err, "store the credentials")
	})
	return err
}

func (s *secretStore) Delete(ctx context.Context, key string) error {
	_, err := call(ctx, s, "delete", func(svc *secretservice.SecretService, _ *secretservice.Session) (struct{}, error) {
		items, err := search(svc, key)
		if err != nil {
			return struct{}{}, usable(err, "search for credentials")
		}
		if len(items) == 0 {
			return struct{}{}, ErrNotFound
		}
		if err := svc.Unlock(items); err != nil {
			return struct{}{}, usable(err, "unlock the credentials")
		}
		for _, it := range items {
			if err := svc.DeleteItem(it); err != nil {
				return struct{}{}, usable(err, "delete the credentials")
			}
		}
		return struct{}{}, nil
	})
	return err
}

// Ready unlocks the default collection, so a login can fail before the
// user approves anything rather than after.
func (s *secretStore) Ready(ctx context.Context) error {
	_, err := call(ctx, s, "unlock", func(svc *secretservice.SecretService, _ *secretservice.Session) (struct{}, error) {
		return struct{}{}, usable(svc.Unlock([]dbus.ObjectPath{secretservice.DefaultCollection}), "unlock the default collection")
	})
	return err
}
