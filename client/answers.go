package client

import (
	"context"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/mcpc-dev/mcpc/client/input"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpc-dev/mcpc/internal/elicit"
	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/termui"
	"github.com/mcpc-dev/mcpc/internal/textsafe"
	"github.com/mcpc-dev/mcpc/internal/toolschema"
)

// Answers are the answers given on the command line (--answer, --answers,
// --yes) and the log level wanted, read before anything connects.
type Answers struct {
	Pairs    []toolschema.Pair
	Base     map[string]any
	Yes      bool
	LogLevel string
	// StdinBy is what of the flags takes stdin ("--answers -", "--args -",
	// "--batch -", an --answer key=@-), "" for nothing; WordStdin is the
	// command's key=@- word. Both are known before anything is read; with
	// either set, no terminal questions.
	StdinBy, WordStdin string
}

// AnswerFlags are the flags Answers are read from, as given.
type AnswerFlags struct {
	Answer   []string // the --answer words
	Answers  string   // --answers: a JSON object, @FILE or -
	Yes      bool
	LogLevel string
	// Args and Batch are --args and --batch, which may read stdin too;
	// Words are the command's own words, where a key=@- reads it.
	Args, Batch string
	Words       []string
	Stdin       io.Reader
	Cwd         string
}

// ReadAnswers checks the answer flags and reads --answers and the files
// its words name: the only I/O before the command's own.
func ReadAnswers(f AnswerFlags) (*Answers, error) {
	o := &Answers{Yes: f.Yes, LogLevel: f.LogLevel}
	if !slices.Contains(input.LogLevels, o.LogLevel) {
		return nil, fail.New(fail.Usage, "", "--log-level must be one of %s, not %q", strings.Join(input.LogLevels, ", "), o.LogLevel)
	}
	var err error
	if o.Pairs, err = toolschema.ParsePairs(f.Answer); err != nil {
		return nil, err
	}
	stdinFlags := []struct{ name, v string }{{"answers", f.Answers}, {"args", f.Args}, {"batch", f.Batch}}
	for _, other := range stdinFlags[1:] {
		if f.Answers == "-" && other.v == "-" {
			return nil, fail.New(fail.Usage, "put one of them in a file and pass @FILE", "--answers - and --%s - cannot both read stdin", other.name)
		}
	}
	for _, s := range stdinFlags {
		if s.v == "-" && o.StdinBy == "" {
			o.StdinBy = "--" + s.name + " -"
		}
	}
	for _, w := range f.Words {
		if toolschema.WordReadsStdin(w) && o.WordStdin == "" {
			o.WordStdin = w
		}
	}
	if f.Answers == "-" && o.WordStdin != "" {
		// --answers is read before the command's own words are parsed: a
		// key=@- among them must be refused before stdin is gone.
		return nil, fail.New(fail.Usage, "put one of them in a file and pass @FILE", "%s and --answers - cannot both read standard input", o.WordStdin)
	}
	if o.Base, err = toolschema.ReadObject("--answers", `'{"confirmed":true}'`, f.Answers, f.Stdin, f.Cwd); err != nil {
		return nil, err
	}
	if o.StdinBy, err = toolschema.ReadPairFiles(o.Pairs, o.StdinBy, f.Stdin, f.Cwd); err != nil {
		return nil, err
	}
	return o, nil
}

// Keys lists the fields the command line answers, sorted.
func (o *Answers) Keys() []string {
	set := map[string]bool{}
	for k := range o.Base {
		set[k] = true
	}
	for _, p := range o.Pairs {
		set[p.Key] = true
	}
	return slices.Sorted(maps.Keys(set))
}

// elicit is the command-line answers as elicit takes them: key=value
// words typed by the fields' schemas as tool arguments are.
func (o *Answers) elicit() *elicit.Answers {
	return &elicit.Answers{
		Given: func(types map[string][]string) map[string]any { return toolschema.Merge(o.Base, o.Pairs, types) },
		Keys:  o.Keys(),
		Yes:   o.Yes,
	}
}

// Input is what a session answers with: the command line's answers, then
// a person when stdin and stderr are a terminal that nothing else reads;
// notes and questions go to stderr, a URL as JSON when json is set. pause
// stops the live progress line while a question is asked. A nil o (the
// flags were not read, as for shell completion's lookups) offers nothing.
func (o *Answers) Input(stdin io.Reader, stderr io.Writer, json bool, pause func() (resume func())) *input.Input {
	if o == nil {
		return nil
	}
	var term *elicit.Prompter
	if o.StdinBy == "" && o.WordStdin == "" && termui.IsTerminal(stdin) && termui.IsTerminal(stderr) {
		term = elicit.NewPrompter(stdin, stderr, toolschema.Coerce)
	}
	a := elicit.NewAnswerer(o.elicit(), term, stderr, json)
	return &input.Input{
		Elicit: func(ctx context.Context, server string, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			// The live progress line (a long task's status) stays away
			// from the question.
			defer pause()()
			return a.Elicit(ctx, server, p)
		},
		Log:         a.Log,
		Note:        func(msg string) { textsafe.Note(stderr, "%s", textsafe.OneLine(msg)) },
		LogLevel:    o.LogLevel,
		Interactive: term != nil && !o.Yes,
	}
}
