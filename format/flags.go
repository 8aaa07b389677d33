package format

import (
	"math"

	"github.com/mcpc-dev/mcpc/internal/fail"
)

// Flags are the output flags as given: --json, --text, --query,
// --max-bytes and --max-lines.
type Flags struct {
	JSON, Text         bool
	Query              string
	MaxBytes, MaxLines int
}

// Options checks the flags and returns the options they ask for (Mode,
// Query and the bounds), stdoutTTY saying whether stdout is a terminal:
// --json or --text, else text on a terminal and JSON anywhere else; a
// bound of 0 (no limit) becomes the largest.
func (f Flags) Options(stdoutTTY bool) (Options, error) {
	o := Options{Mode: ModeJSON, Query: f.Query, MaxBytes: f.MaxBytes, MaxLines: f.MaxLines}
	switch {
	case f.JSON && f.Text:
		return o, fail.New(fail.Usage, "", "--json and --text cannot be used together")
	case f.Text || stdoutTTY && !f.JSON:
		o.Mode = ModeText
	}
	// A path that cannot select anything fails here, before a server is
	// started: the tool must not run only for its result to be thrown away.
	if f.Query != "" {
		if err := CheckQuery(f.Query); err != nil {
			return o, QueryUsage(err)
		}
	}
	if f.MaxBytes < 0 || f.MaxBytes > 0 && f.MaxBytes < 256 {
		return o, fail.New(fail.Usage, "", "--max-bytes must be 0 (no limit) or at least 256, not %d", f.MaxBytes)
	}
	if f.MaxLines < 0 || f.MaxLines > 0 && f.MaxLines < 3 {
		return o, fail.New(fail.Usage, "", "--max-lines must be 0 (no limit) or at least 3, not %d", f.MaxLines)
	}
	if o.MaxBytes == 0 {
		o.MaxBytes = math.MaxInt
	}
	if o.MaxLines == 0 {
		o.MaxLines = math.MaxInt
	}
	return o, nil
}
