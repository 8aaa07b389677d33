package creds

// The Windows Credential Manager through github.com/danieljoos/wincred, a
// pure-Go binding of CredReadW/CredWriteW/CredDeleteW: one generic
// credential per part of a record (see keyring_parts.go), persisted for
// this user on this machine only (CRED_PERSIST_LOCAL_MACHINE, never
// ENTERPRISE, which roams with the profile to other machines, as iCloud
// sync would on macOS). Any program running as the user can read a generic
// credential: the Credential Manager has no per-program access list, as the
// unlocked Secret Service on Linux has none. Compiled and vetted in CI for
// amd64 and arm64; nothing here can run it.

import (
	"errors"
	"syscall"

	"github.com/danieljoos/wincred"
)

// OSStore is the Windows Credential Manager.
func OSStore(func(string) string) Store {
	return partedStore{items: credmanItems{}, limit: credBlobLimit}
}

type credmanItems struct{}

func credmanStatus(err error, what string) error {
	if err == nil {
		return nil
	}
	var en syscall.Errno
	if errors.As(err, &en) {
		return credmanErr(uint32(en), en.Error(), what)
	}
	return unavailable(err, "the Windows Credential Manager cannot %s", what)
}

func (credmanItems) read(name string) ([]byte, error) {
	cred, err := wincred.GetGenericCredential(credmanTarget(name))
	if err != nil {
		return nil, credmanStatus(err, "read the credentials")
	}
	return cred.CredentialBlob, nil
}

func (credmanItems) write(name, label string, data []byte) error {
	cred := wincred.NewGenericCredential(credmanTarget(name))
	cred.Persist = wincred.PersistLocalMachine
	cred.UserName = "mcpc"
	cred.Comment = clipUTF16(label, credCommentLimit)
	cred.CredentialBlob = data
	return credmanStatus(cred.Write(), "store the credentials")
}

func (credmanItems) remove(name string) error {
	return credmanStatus(wincred.NewGenericCredential(credmanTarget(name)).Delete(), "delete the credentials")
}
