package config

import (
	"slices"
	"testing"

	"github.com/mcpc-dev/mcpc/internal/fail"
)

func TestAdHocTarget(t *testing.T) {
	server, rest, err := AdHoc{}.Target([]string{"srv", "tool", "a=1"})
	if server != "srv" || !slices.Equal(rest, []string{"tool", "a=1"}) || err != nil {
		t.Errorf("a named server: %q %q %v", server, rest, err)
	}
	server, rest, err = AdHoc{Stdio: "server --flag"}.Target([]string{"tool"})
	if server != "" || !slices.Equal(rest, []string{"tool"}) || err != nil {
		t.Errorf("--stdio: %q %q %v", server, rest, err)
	}
	for _, tc := range []struct {
		a    AdHoc
		args []string
		msg  string
	}{
		{AdHoc{}, nil, "missing SERVER"},
		{AdHoc{Argv: []string{"server"}}, []string{"https://example.com/mcp"}, "give either a server URL or a --stdio command, not both"},
	} {
		_, _, err := tc.a.Target(tc.args)
		if e := fail.As(err); e == nil || e.Code != fail.Usage || e.Msg != tc.msg {
			t.Errorf("%+v %q: %v, want %q", tc.a, tc.args, err, tc.msg)
		}
	}
}
