// Package report prints a failure the one way mcpc does: the stderr lines
// every failure gets, the JSON object --json adds (and --batch prints in
// place of a failed call's result), and the exit status. It is fail's,
// kept apart so that fail stays a leaf while this one-lines what it shows.
package report

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/textsafe"
)

// Print prints err in mcpc's fixed style, and as JSON when asJSON, and
// returns the exit status.
func Print(stderr io.Writer, err error, asJSON bool) int {
	if err == nil {
		return fail.ExitOK
	}
	e := fail.From(err)
	code := e.Code.Exit()
	if e.Code == fail.ToolError || e.Code == fail.Drift {
		return code // what happened is already printed
	}
	msg, hint := textsafe.OneLine(e.Msg), textsafe.OneLine(e.Hint)
	fmt.Fprintf(stderr, "mcpc: error: %s\n", msg)
	if hint != "" {
		fmt.Fprintf(stderr, "mcpc: hint: %s\n", hint)
	}
	if asJSON {
		fmt.Fprintf(stderr, "%s\n", Object(e))
	}
	return code
}

// Object is the JSON form of a failure.
func Object(e *fail.Error) []byte {
	obj := map[string]any{"code": e.Code, "message": textsafe.OneLine(e.Msg), "hint": textsafe.OneLine(e.Hint), "exit": e.Code.Exit()}
	for k, v := range e.Fields {
		if _, taken := obj[k]; !taken {
			obj[k] = v
		}
	}
	b, _ := json.Marshal(map[string]any{"error": obj})
	return b
}
