//go:build !linux && !windows && !darwin

package creds

import (
	"fmt"
	"runtime"
)

// OSStore is a keyring that is never there: mcpc has no keyring
// implementation for this platform.
func OSStore(func(string) string) Store {
	return noStore{fmt.Sprintf("mcpc has no keyring support on %s/%s", runtime.GOOS, runtime.GOARCH)}
}
