package creds

import "testing"

// On Windows the keyring is the Credential Manager, with records split at
// a credential blob's limit. This runs only on Windows (CI compiles and
// vets it for amd64 and arm64); it creates no credential.
func TestOSStoreIsCredentialManager(t *testing.T) {
	st, ok := OSStore(nil).(partedStore)
	if _, isCredman := st.items.(credmanItems); !ok || !isCredman || st.limit != credBlobLimit {
		t.Fatalf("OSStore = %#v, want the Credential Manager with the %d-byte limit", OSStore(nil), credBlobLimit)
	}
}
