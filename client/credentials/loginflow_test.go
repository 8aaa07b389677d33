package credentials

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpc-dev/mcpc/client/input"

	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/client/conn"
	"github.com/mcpc-dev/mcpc/client/state"
	"github.com/mcpc-dev/mcpc/creds"
	"github.com/mcpc-dev/mcpc/internal/fail"
)

// Login connects with the caller's options but for what a login
// overrides (the bound is the login's deadline, the handler the login in
// progress, no input and no memo), passes a refusal on as it is, and
// names a deadline that ran out while the server waited for the user.
func TestLoginConnect(t *testing.T) {
	e := &config.Entry{Name: "web", Server: &config.Server{URL: "https://mcp.example.com/mcp"}}
	c := Credentials{Store: creds.NewMemStore(), LockDir: t.TempDir(), Getenv: func(string) string { return "" }, Now: time.Now}
	refused := errors.New("refused")
	steps := func(connect func(context.Context, conn.ConnectOptions) error) LoginSteps {
		return LoginSteps{ShowLink: func(string) {}, Note: func(string) {},
			Options: func() conn.ConnectOptions {
				return conn.ConnectOptions{MaxMessage: 1024, ConnectTimeout: time.Second, Input: &input.Input{}, Memo: &state.Memo{}}
			},
			Connect: connect}
	}

	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	var got conn.ConnectOptions
	_, err := c.Login(ctx, e, steps(func(_ context.Context, o conn.ConnectOptions) error { got = o; return refused }))
	if err != refused {
		t.Fatalf("err %v, want the refusal as it is", err)
	}
	if got.MaxMessage != 1024 || got.ConnectTimeout <= time.Minute || got.OAuthHandler == nil || got.WrapHTTP == nil || got.Input != nil || got.Memo != nil {
		t.Errorf("options %+v: want MaxMessage 1024, the login's bound, a handler and its wrapper, no input, no memo", got)
	}

	// The deadline runs out while the server waits (a context whose Err
	// turns at that moment, so that nothing before it can run out).
	late := &expiring{Context: context.Background()}
	_, err = c.Login(late, e, steps(func(context.Context, conn.ConnectOptions) error { late.expired.Store(true); return refused }))
	want := "no authorization arrived for web before the time ran out"
	if err == nil || err.Error() != want || fail.CodeOf(err) != fail.Timeout {
		t.Errorf("err %v (%v), want %q (timeout)", err, fail.CodeOf(err), want)
	}
}

// expiring is a context whose deadline has passed once expired is set.
type expiring struct {
	context.Context
	expired atomic.Bool
}

func (c *expiring) Err() error {
	if c.expired.Load() {
		return context.DeadlineExceeded
	}
	return nil
}
