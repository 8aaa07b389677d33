package client

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A credential's name in cache files is keyed with a private per-user
// secret: stable for one user, not a plain hash of the token.
func TestCredentialKeyIsKeyed(t *testing.T) {
	dirs := DirsFrom(func(k string) string { return map[string]string{"HOME": t.TempDir()}[k] })
	m := NewMemo(dirs)
	a, b := m.credentialKey("Bearer tok"), m.credentialKey("Bearer tok")
	if a != b || a == hashKey("credential", "Bearer tok") || a == m.credentialKey("Bearer other") {
		t.Fatalf("keys %q %q", a, b)
	}
	st, err := os.Stat(filepath.Join(dirs.State, "cache-key"))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("cache-key: %v %v", st, err)
	}
	if strings.Contains(a, "tok") || NewMemo(dirs).credentialKey("Bearer tok") != a {
		t.Fatal("key not stable across invocations")
	}
}
