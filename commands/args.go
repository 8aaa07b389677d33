package commands

import (
	"io"

	"github.com/mcpc-dev/mcpc/client"
	"github.com/mcpc-dev/mcpc/internal/toolschema"
)

// argSource is where call's and prompt's arguments are read from before
// any connection: --args (a JSON object, @FILE or -) and key=@PATH words,
// relative to cwd, stdin read once per invocation.
type argSource struct {
	stdin io.Reader
	cwd   string
	// input is the invocation's answers, which may read stdin too; nil
	// when none are given.
	input *client.Answers
}

// argSource is the invocation's.
func (st *state) argSource(g *globals) argSource {
	return argSource{stdin: st.env.Stdin, cwd: g.cwd, input: g.input}
}

// readFiles reads the files and stdin a command's key=@PATH words name,
// stdin only when nothing else of the invocation reads it.
func (a argSource) readFiles(pairs []toolschema.Pair) error {
	by := ""
	if a.input != nil {
		by = a.input.StdinBy
	}
	by, err := toolschema.ReadPairFiles(pairs, by, a.stdin, a.cwd)
	if a.input != nil {
		a.input.StdinBy = by
	}
	return err
}

// readArgs reads --args's value: a JSON object, @FILE, or - (stdin).
func (a argSource) readArgs(flag string) (map[string]any, error) {
	return toolschema.ReadArgs(flag, a.stdin, a.cwd)
}
