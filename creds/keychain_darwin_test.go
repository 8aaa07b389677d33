package creds

import "testing"

// On macOS the keyring is the Keychain as one item per record. This runs
// only on a Mac (CI compiles and vets it for darwin/amd64 and arm64); it
// loads the frameworks but creates no item.
func TestOSStoreIsKeychain(t *testing.T) {
	st, ok := OSStore(nil).(partedStore)
	if _, isKeychain := st.items.(keychainItems); !ok || !isKeychain || st.limit != 0 {
		t.Fatalf("OSStore = %#v, want the Keychain without a limit", OSStore(nil))
	}
	if err := loadSecurity(); err != nil {
		t.Fatal(err)
	}
	for name, v := range map[string]uintptr{
		"kSecClass": sec.class, "kSecClassGenericPassword": sec.classGenericPassword,
		"kSecAttrAccessibleWhenUnlockedThisDeviceOnly": sec.whenUnlocked,
		"kSecAttrSynchronizable":                       sec.synchronizable, "kCFBooleanFalse": sec.cfFalse,
	} {
		if v == 0 {
			t.Errorf("%s did not load", name)
		}
	}
}
