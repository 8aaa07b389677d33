package format

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/mcpc-dev/mcpc/internal/fail"
)

// Printer renders results under the output contract: Options (all but
// Kind, given per result) come from the output flags; results go to
// Stdout and notes about them to Stderr.
type Printer struct {
	Stdout, Stderr io.Writer
	Options        Options
}

// Print renders v, a result object of mcpc's own. more, if not nil,
// adjusts the options for this kind of output.
func (p Printer) Print(kind Kind, v any, more func(*Options)) error {
	// No HTML escaping: "<" in a tool's text must reach the user as "<".
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("cannot encode the result: %w", err)
	}
	return p.PrintRaw(kind, bytes.TrimSuffix(buf.Bytes(), []byte("\n")), more)
}

// PrintRaw renders b, a result as the server sent it.
func (p Printer) PrintRaw(kind Kind, b []byte, more func(*Options)) error {
	opts := p.Options
	opts.Kind = kind
	if more != nil {
		more(&opts)
	}
	return Write(p.Stdout, p.Stderr, b, opts)
}

// QueryUsage is the one mapping of what Write and CheckQuery refuse to the
// error model: a --query that fails (before any work, or on a result it
// yields no JSON from) is a usage error.
func QueryUsage(err error) error {
	var qe *QueryError
	if errors.As(err, &qe) {
		return fail.New(fail.Usage, "see https://github.com/tidwall/gjson/blob/master/SYNTAX.md", "invalid --query %q: %s", qe.Query, qe.Reason)
	}
	return err
}
