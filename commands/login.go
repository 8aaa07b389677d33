package commands

import (
	"context"
	"io"
	"time"

	"github.com/mcpc-dev/mcpc/client/conn"
	"github.com/mcpc-dev/mcpc/client/credentials"

	"github.com/urfave/cli/v3"

	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/format"
	"github.com/mcpc-dev/mcpc/internal/termui"
	"github.com/mcpc-dev/mcpc/internal/textsafe"
	"github.com/mcpc-dev/mcpc/internal/units"
)

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
	creds          credentials.Credentials
	sessionOptions func(*config.Entry) conn.ConnectOptions
	connect        func(ctx context.Context, e *config.Entry, o conn.ConnectOptions) (connection, error)
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
(OpenID Connect) and keeps the ID token. Bounded by --timeout (default ` + units.DurationText(credentials.DefaultLoginTimeout) + `).`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "paste", Usage: "also accept the redirect URL pasted on stdin (for remote shells)"},
		},
		Action: st.serverAction(func(ctx context.Context, cmd *cli.Command, g *globals) error {
			o := loginOptions{jsonLink: g.jsonFlag}
			if cmd.Bool("paste") {
				o.paste = st.env.Stdin
			}
			var err error
			if o.server, err = oneServer(g, cmd.Args().Slice(), "login"); err != nil {
				return err
			}
			if g.timeout == 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, credentials.DefaultLoginTimeout)
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
	return rio.entry(server, func(e *config.Entry) error { return credentials.CheckLoginTarget(e, verb) })
}

// runLogin logs in to the server and prints the login.
func runLogin(ctx context.Context, lio loginIO, o loginOptions) error {
	e, err := loginTarget(lio.runIO, o.server, "login")
	if err != nil {
		return err
	}
	rec, err := lio.creds.Login(ctx, e, credentials.LoginSteps{
		ShowLink: func(link string) { termui.ShowLink(lio.stderr, o.jsonLink, link) },
		Note:     func(msg string) { textsafe.Note(lio.stderr, "%s", msg) },
		Paste:    o.paste,
		Options:  func() conn.ConnectOptions { return lio.sessionOptions(e) },
		Connect: func(ctx context.Context, opts conn.ConnectOptions) error {
			sess, err := lio.connect(ctx, e, opts)
			if err == nil {
				sess.Close()
			}
			return err
		},
	})
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
