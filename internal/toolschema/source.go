package toolschema

import "io"

// Source is where a command's arguments are read from before any
// connection: --args (a JSON object, @FILE or -) and key=@PATH words,
// relative to Cwd. StdinBy is what else of the command line reads stdin
// ("" for nothing), decided before anything is read: reading changes it
// not.
type Source struct {
	Stdin   io.Reader
	Cwd     string
	StdinBy string
}

// Read parses words (key=value, key:=json) and reads the files and stdin
// they name, then --args's value (flag). The words come first: a key=@-
// that --args - would also read is refused before either reads stdin.
func (s Source) Read(words []string, flag string) (base map[string]any, pairs []Pair, err error) {
	if pairs, err = ParsePairs(words); err != nil {
		return nil, nil, err
	}
	if _, err := ReadPairFiles(pairs, s.StdinBy, s.Stdin, s.Cwd); err != nil {
		return nil, nil, err
	}
	base, err = ReadArgs(flag, s.Stdin, s.Cwd)
	return base, pairs, err
}

// ReadPrompt is Read for a prompt's arguments, which are strings
// (PromptArgs).
func (s Source) ReadPrompt(words []string, flag string) (map[string]string, error) {
	base, pairs, err := s.Read(words, flag)
	if err != nil {
		return nil, err
	}
	return PromptArgs(base, pairs)
}
