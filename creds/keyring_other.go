//go:build !linux && !windows && !(darwin && cgo)

package creds

import (
	"fmt"
	"runtime"
)

// OSStore is a keyring that is never there: this platform (or a macOS build
// without cgo) has no keyring implementation.
func OSStore(func(string) string) Store {
	return noStore{fmt.Sprintf("mcpc has no keyring support on %s/%s in this build", runtime.GOOS, runtime.GOARCH)}
}
