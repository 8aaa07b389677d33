// Command hello prints one line and exits: the start-up cost of a static Go
// binary, which bench/run sets beside `mcpc --version`.
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stdout, "hello, world")
}
