package toolschema

import (
	"errors"
	"testing"
	"testing/iotest"

	"github.com/mcpc-dev/mcpc/internal/fail"
)

// A stdin that fails mid-read (a closed terminal, an I/O error) is named
// as the value it was to give.
func TestArgsStdinFails(t *testing.T) {
	_, err := ReadArgs("-", iotest.ErrReader(errors.New("input/output error")), t.TempDir())
	if e := fail.As(err); e == nil || e.Code != fail.Usage || e.Msg != "cannot read --args from stdin: input/output error" {
		t.Fatalf("ReadArgs: %v", err)
	}
}
