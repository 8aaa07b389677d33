package format

import (
	"math"
	"testing"

	"github.com/mcpc-dev/mcpc/internal/fail"
)

func TestFlagsOptions(t *testing.T) {
	for _, tc := range []struct {
		f    Flags
		tty  bool
		mode Mode
		err  string
	}{
		{Flags{}, false, ModeJSON, ""},
		{Flags{}, true, ModeText, ""},
		{Flags{JSON: true}, true, ModeJSON, ""},
		{Flags{Text: true}, false, ModeText, ""},
		{Flags{JSON: true, Text: true}, false, 0, "--json and --text cannot be used together"},
		{Flags{MaxBytes: 255}, false, 0, "--max-bytes must be 0 (no limit) or at least 256, not 255"},
		{Flags{MaxBytes: -1}, false, 0, "--max-bytes must be 0 (no limit) or at least 256, not -1"},
		{Flags{MaxLines: 2}, false, 0, "--max-lines must be 0 (no limit) or at least 3, not 2"},
	} {
		o, err := tc.f.Options(tc.tty)
		if tc.err != "" {
			if e := fail.As(err); e == nil || e.Code != fail.Usage || e.Msg != tc.err {
				t.Errorf("%+v: %v, want usage error %q", tc.f, err, tc.err)
			}
			continue
		}
		if err != nil || o.Mode != tc.mode || o.MaxBytes != math.MaxInt || o.MaxLines != math.MaxInt {
			t.Errorf("%+v tty=%v: %+v, %v", tc.f, tc.tty, o, err)
		}
	}
	o, err := Flags{Query: "a.b", MaxBytes: 300, MaxLines: 3}.Options(false)
	if err != nil || o.Query != "a.b" || o.MaxBytes != 300 || o.MaxLines != 3 {
		t.Errorf("bounds as given: %+v, %v", o, err)
	}
	if _, err := (Flags{Query: "a["}).Options(false); fail.CodeOf(err) != fail.Usage {
		t.Errorf("a malformed --query: %v", err)
	}
}
