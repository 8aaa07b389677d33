// Command hellosdk is bench/hello with the MCP SDK linked in and
// initialised: set beside `mcpc --version`, it shows how much of mcpc's
// start-up the SDK costs on its own.
package main

import (
	"fmt"
	"os"

	_ "github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	fmt.Fprintln(os.Stdout, "hello, world")
}
