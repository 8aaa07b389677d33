// This file is what call makes of a schema check: a mismatch of the
// arguments fails the call, one of the result warns (or fails under
// --strict), and a schema mcpc cannot use is a note, since the server
// checks too.

package toolschema

import (
	"context"
	"io"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/textsafe"
)

// CheckArgs checks a call's arguments against the tool's inputSchema; a
// schema mcpc cannot use is a note on notes, not a failure.
func CheckArgs(ctx context.Context, notes io.Writer, tool *mcp.Tool, args map[string]any) error {
	skipped, err := ValidateArgs(ctx, tool, args)
	if err != nil {
		return err
	}
	if skipped != "" {
		textsafe.Note(notes, "arguments of %q not checked: the tool's inputSchema cannot be used (%s)", tool.Name, skipped)
	}
	return nil
}

// CheckOutput checks structuredContent against the tool's outputSchema: a
// mismatch is a warning, or under strict (--strict) the error to report
// once the result is printed. A schema mcpc cannot use is a note, as for
// the arguments; the end of ctx during the check is its cause.
func CheckOutput(ctx context.Context, notes io.Writer, strict bool, tool *mcp.Tool, raw []byte) error {
	mismatch, skipped, err := ValidateOutput(ctx, tool, raw)
	switch {
	case err != nil:
		return err
	case skipped != "":
		textsafe.Note(notes, "structuredContent of %q not checked: the tool's outputSchema cannot be used (%s)", tool.Name, skipped)
		return nil
	case mismatch == "":
		return nil
	case strict:
		return fail.New(fail.Protocol, "drop --strict to accept the result with a warning",
			"structuredContent does not match the outputSchema of tool %q: %s", tool.Name, mismatch)
	}
	textsafe.Warn(notes, "structuredContent does not match the outputSchema of tool %q: %s", tool.Name, mismatch)
	return nil
}
