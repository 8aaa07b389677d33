// Command mcpc is a scriptable command-line client for the Model Context
// Protocol.
package main

import (
	"context"
	"os"

	"github.com/mcpc-dev/mcpc/commands"
)

func main() {
	os.Exit(commands.Main(context.Background(), os.Args, commands.OSEnv()))
}
