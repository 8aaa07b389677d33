// Command mcpc-testserver runs mcpc's deterministic MCP test server; see
// package testserver for its flags, tools and fault modes.
package main

import (
	"os"

	"github.com/mcpc-dev/mcpc/internal/testserver"
)

func main() {
	os.Exit(testserver.Main(os.Args[1:]))
}
