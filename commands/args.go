package commands

import (
	"io"

	"github.com/mcpc-dev/mcpc/internal/toolschema"
)

// argSource is where call's and prompt's arguments are read from before
// any connection: --args (a JSON object, @FILE or -) and key=@PATH words,
// relative to cwd. Who reads stdin was decided with the flags
// (inputOptions.stdinBy): reading changes nothing of the invocation's.
type argSource struct {
	stdin   io.Reader
	cwd     string
	stdinBy string // what of the flags reads stdin, "" for nothing
}

func newArgSource(stdin io.Reader, g *globals) argSource {
	a := argSource{stdin: stdin, cwd: g.cwd}
	if g.input != nil {
		a.stdinBy = g.input.stdinBy
	}
	return a
}

// readFiles reads the files and stdin a command's key=@PATH words name,
// stdin only when no flag reads it.
func (a argSource) readFiles(pairs []toolschema.Pair) error {
	_, err := toolschema.ReadPairFiles(pairs, a.stdinBy, a.stdin, a.cwd)
	return err
}

// readArgs reads --args's value: a JSON object, @FILE, or - (stdin).
func (a argSource) readArgs(flag string) (map[string]any, error) {
	return toolschema.ReadArgs(flag, a.stdin, a.cwd)
}
