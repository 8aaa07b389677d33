package commands

import "github.com/mcpc-dev/mcpc/internal/toolschema"

// readArgFiles reads the files and stdin a command's key=@PATH words name,
// stdin only when nothing else of the invocation reads it.
func (st *state) readArgFiles(g *globals, pairs []toolschema.Pair) error {
	by := ""
	if g.input != nil {
		by = g.input.stdinBy
	}
	by, err := toolschema.ReadPairFiles(pairs, by, st.env.Stdin, g.cwd)
	if g.input != nil {
		g.input.stdinBy = by
	}
	return err
}
