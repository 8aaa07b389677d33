package commands

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/mcpc-dev/mcpc/client"
	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/creds"
	"github.com/mcpc-dev/mcpc/format"
	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/textsafe"
	"github.com/mcpc-dev/mcpc/internal/urlx"
)

// defaultLoginTimeout bounds a login when --timeout is not given: someone
// has to open a link and approve, but not forever.
const defaultLoginTimeout = 5 * time.Minute

type loginOptions struct {
	server string
	// paste is where a pasted redirect URL is read (stdin with --paste),
	// nil when none is accepted.
	paste io.Reader
	// jsonLink: the link is shown as a JSON object (--json).
	jsonLink bool
}

// loginIO is what login and logout reach besides a runIO: the stored
// logins, and the connection a login's OAuth flow runs inside
// (sessionOptions builds every command's settings from the flags).
type loginIO struct {
	runIO
	creds          client.Credentials
	sessionOptions func(*config.Entry) client.ConnectOptions
	connect        func(ctx context.Context, e *config.Entry, o client.ConnectOptions) (session, error)
}

// loginIO is the invocation's.
func (st *state) loginIO(g *globals) loginIO {
	return loginIO{runIO: st.runIO(g), creds: st.credentials(g),
		sessionOptions: func(e *config.Entry) client.ConnectOptions { return st.sessionOptions(g, e) },
		connect:        st.dial().connect}
}

type loginResult struct {
	Server    string     `json:"server"`
	LoggedIn  bool       `json:"loggedIn"`
	Scopes    []string   `json:"scopes,omitempty"`
	ExpiresAt *time.Time `json:"expiresAt,omitempty"`
}

func loginCommand(st *state) *cli.Command {
	return &cli.Command{
		Name:      "login",
		Usage:     "log in to an HTTP server with OAuth and keep the tokens in the OS keyring",
		ArgsUsage: "SERVER",
		Description: `Prints an authorization link on stderr (mcpc never opens a browser) and
waits for the browser to come back to a receiver on 127.0.0.1; with --paste,
the address the browser was sent to can be pasted on stdin instead. The
tokens go to the OS keyring (no plaintext fallback); every later command
uses them, refreshing them when needed. For an enterprise server without
"idTokenEnv" or "idTokenFile", the login is at its identity provider
(OpenID Connect) and keeps the ID token. Bounded by --timeout (default ` + durationText(defaultLoginTimeout) + `).`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "paste", Usage: "also accept the redirect URL pasted on stdin (for remote shells)"},
		},
		Action: st.serverAction(func(ctx context.Context, cmd *cli.Command, g *globals) error {
			o := &loginOptions{jsonLink: g.jsonFlag}
			if cmd.Bool("paste") {
				o.paste = st.env.Stdin
			}
			var err error
			if o.server, err = oneServer(g, cmd.Args().Slice(), "login"); err != nil {
				return err
			}
			if g.timeout == 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, defaultLoginTimeout)
				defer cancel()
			}
			return runLogin(ctx, st.loginIO(g), o)
		}),
	}
}

// oneServer checks that the arguments are exactly one HTTP SERVER.
func oneServer(g *globals, args []string, verb string) (string, error) {
	if g.adhoc.IsStdio() {
		return "", usagef("", "mcpc %s applies to HTTP servers, not --stdio commands", verb)
	}
	if len(args) != 1 {
		return "", usagef("name a configured HTTP server or an https:// URL", "mcpc %s takes exactly one SERVER", verb)
	}
	return args[0], nil
}

// loginTarget resolves SERVER and requires an HTTP server that logs in
// with OAuth.
func loginTarget(rio runIO, server, verb string) (*config.Entry, error) {
	e, err := rio.resolve(server)
	if err != nil {
		return nil, err
	}
	if err := client.CheckLoginTarget(e, verb); err != nil {
		return nil, err
	}
	return e, nil
}

// runLogin logs in to the server (at its identity provider for an
// enterprise server that keeps an ID token) and prints the login.
func runLogin(ctx context.Context, lio loginIO, o *loginOptions) error {
	e, err := loginTarget(lio.runIO, o.server, "login")
	if err != nil {
		return err
	}
	if a := e.Server.Auth; a != nil && a.IdPLogin() {
		return runIdPLogin(ctx, lio, o, e)
	}
	lo, err := lio.creds.LoginOptions(e)
	if err != nil {
		return err
	}
	lo.ShowLink = func(link string) { showLink(lio.stderr, o.jsonLink, link) }
	lo.Note = func(msg string) { textsafe.Note(lio.stderr, "%s", msg) }
	lo.Redact = urlx.QueryRedactor(e.Server.URL)
	lo.Paste = o.paste
	login, err := creds.StartLogin(ctx, lo)
	if err != nil {
		return err
	}
	defer login.Close()
	opts := lio.sessionOptions(e)
	// The whole flow runs inside the handshake: the server's 401 starts
	// it, so the connect bound is the login's.
	opts.ConnectTimeout = defaultLoginTimeout
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
	sess, err := lio.connect(ctx, e, opts)
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return fail.New(fail.Timeout, "open the link and approve within --timeout, or raise it",
				"no authorization arrived for %s before the time ran out", e.ShownName())
		}
		return err
	}
	sess.Close()
	rec, err := login.Finish(ctx)
	if err != nil {
		return err
	}
	res := loginResult{Server: e.ShownName(), LoggedIn: true, Scopes: rec.Scopes}
	if !rec.Expiry.IsZero() {
		t := rec.Expiry.UTC().Truncate(time.Second)
		res.ExpiresAt = &t
	}
	return lio.print(format.KindGeneric, res)
}

// runIdPLogin is the OpenID Connect login of an enterprise server at its
// identity provider: the MCP server is not contacted, since each
// invocation exchanges the ID token anyway.
func runIdPLogin(ctx context.Context, lio loginIO, o *loginOptions, e *config.Entry) error {
	lo, err := lio.creds.IdPLoginOptions(e)
	if err != nil {
		return err
	}
	lo.ShowLink = func(link string) { showLink(lio.stderr, o.jsonLink, link) }
	lo.Note = func(msg string) { textsafe.Note(lio.stderr, "%s", msg) }
	lo.Paste = o.paste
	rec, err := creds.IdPLogin(ctx, lo)
	if err != nil {
		return err
	}
	t := rec.Expiry.UTC().Truncate(time.Second)
	return lio.print(format.KindGeneric, loginResult{Server: e.ShownName(), LoggedIn: true, Scopes: rec.Scopes, ExpiresAt: &t})
}

// showLink prints the authorization link at once, on stderr: stdout keeps
// one document, the login's result.
func showLink(w io.Writer, jsonMode bool, link string) {
	if jsonMode {
		// No HTML escaping: the link's "&" stays "&" for whoever reads it.
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		enc.Encode(map[string]string{"authorizationUrl": link})
		return
	}
	fmt.Fprintf(w, "mcpc: open this link in a browser to authorize mcpc:\n%s\n", link)
}

type logoutResult struct {
	Server    string `json:"server"`
	LoggedOut bool   `json:"loggedOut"`
	WasStored bool   `json:"wasStored"`
	// ForgotRegistration: the client registration the login used was
	// deleted with it.
	ForgotRegistration bool `json:"forgotRegistration,omitempty"`
}

func logoutCommand(st *state) *cli.Command {
	return &cli.Command{
		Name:      "logout",
		Usage:     "delete a server's stored login from the OS keyring",
		ArgsUsage: "SERVER",
		Description: `Deletes the tokens, and the client registration (Dynamic Client
Registration) the login used at its authorization server, so the next login
registers anew.`,
		Action: st.serverAction(func(ctx context.Context, cmd *cli.Command, g *globals) error {
			server, err := oneServer(g, cmd.Args().Slice(), "logout")
			if err != nil {
				return err
			}
			return runLogout(ctx, st.loginIO(g), server)
		}),
	}
}

// runLogout deletes the server's stored login and prints what was.
func runLogout(ctx context.Context, lio loginIO, server string) error {
	e, err := loginTarget(lio.runIO, server, "logout")
	if err != nil {
		return err
	}
	r, err := lio.creds.Logout(ctx, e)
	if r != nil && !r.WasStored {
		textsafe.Note(lio.stderr, "there was no stored login for %s", e.ShownName())
	}
	if err != nil {
		return err
	}
	return lio.print(format.KindGeneric, logoutResult{Server: e.ShownName(), LoggedOut: true, WasStored: r.WasStored, ForgotRegistration: r.ForgotRegistration})
}
