package commands

import (
	"context"
	"maps"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/urfave/cli/v3"

	"github.com/mcpc-dev/mcpc/client"
	"github.com/mcpc-dev/mcpc/internal/elicit"
	"github.com/mcpc-dev/mcpc/internal/termui"
	"github.com/mcpc-dev/mcpc/internal/textsafe"
	"github.com/mcpc-dev/mcpc/internal/toolschema"
)

const catInput = "Answering the server"

// inputFlags answer what a server asks for while a request runs.
func inputFlags() []cli.Flag {
	return []cli.Flag{
		&cli.GenericFlag{Name: "answer", Category: catInput, Value: &wordList{},
			Usage: "answer a field the server asks for with `KEY=VALUE` (typed by its schema) or KEY:=JSON (repeatable)"},
		&cli.StringFlag{Name: "answers", Category: catInput, TakesFile: true,
			Usage: "answers as a JSON object: inline, @`FILE`, or - (stdin); --answer wins"},
		&cli.BoolFlag{Name: "yes", Aliases: []string{"y"}, Category: catInput,
			Usage: "accept what the server asks, taking each unanswered field's default"},
		&cli.StringFlag{Name: "log-level", Category: catInput, Value: client.DefaultLogLevel,
			Usage: "show server log messages at `LEVEL` or above: " + strings.Join(client.LogLevels, ", ")},
	}
}

// wordList collects a repeatable flag's values as given: no splitting at
// commas, since answers are free text.
type wordList []string

func (w *wordList) Set(v string) error { *w = append(*w, v); return nil }
func (w *wordList) String() string     { return strings.Join(*w, " ") }
func (w *wordList) Get() any           { return []string(*w) }

// inputOptions are the answers given on the command line.
type inputOptions struct {
	pairs    []toolschema.Pair
	base     map[string]any
	yes      bool
	logLevel string
	// stdinBy is what of the flags takes stdin ("--answers -", "--args -",
	// "--batch -", an --answer key=@-), "" for nothing; wordStdin is the
	// command's key=@- word. Both are known before anything is read; with
	// either set, no terminal questions.
	stdinBy, wordStdin string
}

// keys lists the fields the command line answers, sorted.
func (o *inputOptions) keys() []string {
	set := map[string]bool{}
	for k := range o.base {
		set[k] = true
	}
	for _, p := range o.pairs {
		set[p.Key] = true
	}
	return slices.Sorted(maps.Keys(set))
}

// answers are the command-line answers as elicit takes them: key=value
// words typed by the fields' schemas as tool arguments are.
func (o *inputOptions) answers() *elicit.Answers {
	return &elicit.Answers{
		Given: func(types map[string][]string) map[string]any { return toolschema.Merge(o.base, o.pairs, types) },
		Keys:  o.keys(),
		Yes:   o.yes,
	}
}

// readInput validates the answer flags before any I/O but --answers.
func (st *state) readInput(cmd *cli.Command, flags flagIndex, cwd string) (*inputOptions, error) {
	o := &inputOptions{yes: flags.Bool("yes"), logLevel: flags.String("log-level")}
	if !slices.Contains(client.LogLevels, o.logLevel) {
		return nil, usagef("", "--log-level must be one of %s, not %q", strings.Join(client.LogLevels, ", "), o.logLevel)
	}
	var words []string
	if w, ok := flags.Value("answer").([]string); ok {
		words = w
	}
	var err error
	if o.pairs, err = toolschema.ParsePairs(words); err != nil {
		return nil, err
	}
	answers := flags.String("answers")
	for _, other := range []string{"args", "batch"} {
		if answers == "-" && flags.String(other) == "-" {
			return nil, usagef("put one of them in a file and pass @FILE", "--answers - and --%s - cannot both read stdin", other)
		}
	}
	for _, f := range []string{"answers", "args", "batch"} {
		if flags.String(f) == "-" && o.stdinBy == "" {
			o.stdinBy = "--" + f + " -"
		}
	}
	for _, w := range cmd.Args().Slice() {
		if toolschema.WordReadsStdin(w) && o.wordStdin == "" {
			o.wordStdin = w
		}
	}
	if answers == "-" && o.wordStdin != "" {
		// --answers is read before the command's own words are parsed: a
		// key=@- among them must be refused before stdin is gone.
		return nil, usagef("put one of them in a file and pass @FILE", "%s and --answers - cannot both read standard input", o.wordStdin)
	}
	if o.base, err = toolschema.ReadObject("--answers", `'{"confirmed":true}'`, answers, st.env.Stdin, cwd); err != nil {
		return nil, err
	}
	if o.stdinBy, err = toolschema.ReadPairFiles(o.pairs, o.stdinBy, st.env.Stdin, cwd); err != nil {
		return nil, err
	}
	return o, nil
}

// clientInput is what the session answers with; nil (offer nothing) when
// the flags were not read, as for shell completion's lookups.
func (st *state) clientInput(g *globals) *client.Input {
	if g.input == nil {
		return nil
	}
	var term *elicit.Prompter
	if g.input.stdinBy == "" && g.input.wordStdin == "" && termui.IsTerminal(st.env.Stdin) && termui.IsTerminal(st.env.Stderr) {
		term = elicit.NewPrompter(st.env.Stdin, st.env.Stderr, toolschema.Coerce)
	}
	a := elicit.NewAnswerer(g.input.answers(), term, st.env.Stderr, g.jsonFlag)
	return &client.Input{
		Elicit: func(ctx context.Context, server string, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			// The live progress line (a long task's status) stays away
			// from the question.
			defer st.progress.Pause()()
			return a.Elicit(ctx, server, p)
		},
		Log:         a.Log,
		Note:        func(msg string) { textsafe.Note(st.env.Stderr, "%s", textsafe.OneLine(msg)) },
		LogLevel:    g.input.logLevel,
		Interactive: term != nil && !g.input.yes,
	}
}
