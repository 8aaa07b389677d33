package credentials

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/client/conn"
	"github.com/mcpc-dev/mcpc/creds"
	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/urlx"
)

// DefaultLoginTimeout bounds a login when --timeout is not given: someone
// has to open a link and approve, but not forever.
const DefaultLoginTimeout = 5 * time.Minute

// LoginSteps are what a login needs of its caller: how the user is shown
// the link and notes, and the connection the OAuth flow runs inside.
type LoginSteps struct {
	ShowLink func(link string)
	Note     func(msg string)
	// Paste is where a pasted redirect URL is read, nil when none is
	// accepted.
	Paste io.Reader
	// Options are the connection's settings as every command builds them;
	// Connect opens the connection with them (and the login's overrides)
	// and closes it.
	Options func() conn.ConnectOptions
	Connect func(ctx context.Context, o conn.ConnectOptions) error
}

// Login logs in to e's server, at its identity provider for an enterprise
// server that keeps an ID token, and returns the stored login.
func (c Credentials) Login(ctx context.Context, e *config.Entry, s LoginSteps) (*creds.Record, error) {
	if a := e.Server.Auth; a != nil && a.IdPLogin() {
		return c.idpLogin(ctx, e, s)
	}
	lo, err := c.LoginOptions(e)
	if err != nil {
		return nil, err
	}
	lo.ShowLink, lo.Note, lo.Paste = s.ShowLink, s.Note, s.Paste
	lo.Redact = urlx.QueryRedactor(e.Server.URL)
	login, err := creds.StartLogin(ctx, lo)
	if err != nil {
		return nil, err
	}
	defer login.Close()
	opts := s.Options()
	// The whole flow runs inside the handshake: the server's 401 starts
	// it, so the connect bound is the login's.
	opts.ConnectTimeout = DefaultLoginTimeout
	if d, ok := ctx.Deadline(); ok {
		opts.ConnectTimeout = time.Until(d)
	}
	// The token comes from the login in progress, never from the stored
	// one it is to replace.
	opts.OAuthHandler = login.Handler()
	opts.WrapHTTP = creds.WrapHTTP(opts.OAuthHandler)
	// The connection makes no request past the handshake, so it offers
	// the server nothing to ask (no elicitation, hence no standalone
	// stream opened for nothing) and has nothing to answer from the
	// results cache; the era verdict is left to the commands that use
	// the session, as it always was.
	opts.Input, opts.Memo = nil, nil
	if err := s.Connect(ctx, opts); err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, fail.New(fail.Timeout, "open the link and approve within --timeout, or raise it",
				"no authorization arrived for %s before the time ran out", e.ShownName())
		}
		return nil, err
	}
	return login.Finish(ctx)
}

// idpLogin is the OpenID Connect login of an enterprise server at its
// identity provider: the MCP server is not contacted, since each
// invocation exchanges the ID token anyway.
func (c Credentials) idpLogin(ctx context.Context, e *config.Entry, s LoginSteps) (*creds.Record, error) {
	lo, err := c.IdPLoginOptions(e)
	if err != nil {
		return nil, err
	}
	lo.ShowLink, lo.Note, lo.Paste = s.ShowLink, s.Note, s.Paste
	return creds.IdPLogin(ctx, lo)
}
