//go:build darwin && cgo

package creds

// The macOS Keychain through github.com/keybase/go-keychain, which needs cgo
// and the macOS SDK: it cannot be built or tested on the Linux machines this
// project is developed on. It implements the same Store as the Secret
// Service, with one generic-password item per record.

import (
	"context"

	"github.com/keybase/go-keychain"
)

// OSStore is the macOS login Keychain.
func OSStore(func(string) string) Store { return keychainStore{} }

const keychainService = "mcpc"

type keychainStore struct{}

func (keychainStore) Get(ctx context.Context, key string) ([]byte, error) {
	return bounded(ctx, "read", func() ([]byte, error) {
		q := keychain.NewItem()
		q.SetSecClass(keychain.SecClassGenericPassword)
		q.SetService(keychainService)
		q.SetAccount(key)
		q.SetMatchLimit(keychain.MatchLimitOne)
		q.SetReturnData(true)
		res, err := keychain.QueryItem(q)
		if err != nil {
			return nil, unavailable(err, "the Keychain cannot read the credentials")
		}
		if len(res) == 0 {
			return nil, ErrNotFound
		}
		return res[0].Data, nil
	})
}

func (keychainStore) Put(ctx context.Context, key, label string, _ map[string]string, data []byte) error {
	_, err := bounded(ctx, "write", func() (struct{}, error) {
		item := keychain.NewGenericPassword(keychainService, key, label, data, "")
		item.SetSynchronizable(keychain.SynchronizableNo)
		item.SetAccessible(keychain.AccessibleWhenUnlockedThisDeviceOnly)
		err := keychain.AddItem(item)
		if err == keychain.ErrorDuplicateItem {
			q := keychain.NewItem()
			q.SetSecClass(keychain.SecClassGenericPassword)
			q.SetService(keychainService)
			q.SetAccount(key)
			upd := keychain.NewItem()
			upd.SetData(data)
			upd.SetLabel(label)
			err = keychain.UpdateItem(q, upd)
		}
		if err != nil {
			return struct{}{}, unavailable(err, "the Keychain cannot store the credentials")
		}
		return struct{}{}, nil
	})
	return err
}

func (keychainStore) Delete(ctx context.Context, key string) error {
	_, err := bounded(ctx, "delete", func() (struct{}, error) {
		q := keychain.NewItem()
		q.SetSecClass(keychain.SecClassGenericPassword)
		q.SetService(keychainService)
		q.SetAccount(key)
		err := keychain.DeleteItem(q)
		if err == keychain.ErrorItemNotFound {
			return struct{}{}, ErrNotFound
		}
		if err != nil {
			return struct{}{}, unavailable(err, "the Keychain cannot delete the credentials")
		}
		return struct{}{}, nil
	})
	return err
}
