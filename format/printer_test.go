package format

import (
	"errors"
	"strings"
	"testing"

	"github.com/mcpc-dev/mcpc/internal/fail"
)

// TestPrinterNoHTMLEscape: mcpc's own objects reach stdout with "<", ">"
// and "&" as they are, under the kind and options given per result.
func TestPrinterNoHTMLEscape(t *testing.T) {
	var out, errw strings.Builder
	p := Printer{Stdout: &out, Stderr: &errw, Options: Options{Mode: ModeJSON, Kind: KindCallTool}}
	if err := p.Print(KindGeneric, map[string]string{"a": "<b> & c"}, func(o *Options) { o.Query = "a" }); err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), "\"<b> & c\"\n"; got != want || errw.Len() != 0 {
		t.Errorf("stdout %q (want %q), stderr %q", got, want, errw.String())
	}
	if err := p.Print(KindGeneric, func() {}, nil); err == nil || !strings.HasPrefix(err.Error(), "cannot encode the result: ") {
		t.Errorf("a value JSON cannot hold: %v", err)
	}
}

func TestQueryUsage(t *testing.T) {
	e := fail.As(QueryUsage(CheckQuery("a[")))
	if e == nil || e.Code != fail.Usage || !strings.HasPrefix(e.Msg, `invalid --query "a[": `) || !strings.Contains(e.Hint, "SYNTAX.md") {
		t.Errorf("QueryUsage = %#v", e)
	}
	other := errors.New("disk full")
	if QueryUsage(other) != other {
		t.Error("an error that is no query's passes as it is")
	}
}
