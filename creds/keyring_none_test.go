package creds

import (
	"context"
	"testing"

	"github.com/mcpc-dev/mcpc/internal/fail"
)

// A platform without a keyring (Windows, a Linux machine without a session
// bus) fails every call, and a login before it starts, with exit 4 and the
// hint naming the ways that need no keyring.
func TestNoKeyring(t *testing.T) {
	ctx := context.Background()
	st := noStore{"there is no keyring: for a test"}
	_, getErr := st.Get(ctx, "k")
	_, loginErr := StartLogin(ctx, LoginOptions{Store: st, Ref: Ref{Key: "k", Server: "prod"}})
	for what, err := range map[string]error{
		"Get":        getErr,
		"Put":        st.Put(ctx, "k", "label", nil, []byte("x")),
		"Delete":     st.Delete(ctx, "k"),
		"Ready":      st.Ready(ctx),
		"StartLogin": loginErr,
	} {
		e := fail.As(err)
		if e == nil || e.Code != fail.AuthRequired || e.Msg != "there is no keyring: for a test" || e.Hint != UnavailableHint {
			t.Errorf("%s: %#v", what, err)
		}
	}
}
