package creds

import "testing"

// Without a session bus address there is no keyring (mcpc must not
// autolaunch a bus to find one): the same store as on a platform without
// keyring support, so the same errors.
func TestOSStoreWithoutBus(t *testing.T) {
	st, ok := OSStore(func(string) string { return "" }).(noStore)
	if want := "there is no keyring: DBUS_SESSION_BUS_ADDRESS is not set, so the Secret Service cannot be reached"; !ok || st.reason != want {
		t.Fatalf("OSStore without a bus = %#v, want noStore{%q}", st, want)
	}
	if _, ok := OSStore(func(string) string { return "unix:path=/nonexistent" }).(*secretStore); !ok {
		t.Fatal("OSStore with a bus address is not the Secret Service")
	}
}
