package commands

import (
	"io"
	"strings"

	"github.com/mcpc-dev/mcpc/client/input"

	"github.com/urfave/cli/v3"

	"github.com/mcpc-dev/mcpc/client"
	"github.com/mcpc-dev/mcpc/internal/cliflags"
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
		&cli.StringFlag{Name: "log-level", Category: catInput, Value: input.DefaultLogLevel,
			Usage: "show server log messages at `LEVEL` or above: " + strings.Join(input.LogLevels, ", ")},
	}
}

// wordList collects a repeatable flag's values as given: no splitting at
// commas, since answers are free text.
type wordList []string

func (w *wordList) Set(v string) error { *w = append(*w, v); return nil }
func (w *wordList) String() string     { return strings.Join(*w, " ") }
func (w *wordList) Get() any           { return []string(*w) }

// readInput checks the answer flags before any I/O but --answers (which
// may name stdin, as may call's --args and --batch) and cmd's key=@PATH
// words.
func readInput(cmd *cli.Command, flags cliflags.Index, stdin io.Reader, cwd string) (*client.Answers, error) {
	words, _ := flags.Value("answer").([]string)
	return client.ReadAnswers(client.AnswerFlags{Answer: words, Answers: flags.String("answers"),
		Yes: flags.Bool("yes"), LogLevel: flags.String("log-level"),
		Args: flags.String("args"), Batch: flags.String("batch"), Words: cmd.Args().Slice(),
		Stdin: stdin, Cwd: cwd})
}
