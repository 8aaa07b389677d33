package commands

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/client/serve"
	"github.com/mcpc-dev/mcpc/internal/buildinfo"
	"github.com/mcpc-dev/mcpc/internal/helptext"
	"github.com/mcpc-dev/mcpc/internal/textsafe"
	"github.com/mcpc-dev/mcpc/internal/units"
)

func serveCommand(st *state) *cli.Command {
	return &cli.Command{
		Name:      "serve",
		Usage:     "lend a server to other MCP clients, without lending its credentials",
		ArgsUsage: "SERVER...",
		Description: `Serves SERVER as an MCP server of its own on stdin and stdout, so that any MCP
host can run 'mcpc serve SERVER' as its server command: the host reaches the
server through mcpc and never holds its token, headers, environment or
command line. The server is reached through its live session; without one,
serve holds the session itself until it ends (other invocations attach to it
meanwhile); with --no-session (and for a --stdio or URL target) serve holds
the server alone. It runs until the client closes stdin, or SIGINT/SIGTERM.
See 'mcpc help serve'.`,
		Flags: append(serveHTTPFlags(),
			&cli.DurationFlag{Name: "idle", Usage: "end serve after `DURATION` without a client's request (0: never)"},
			&cli.DurationFlag{Name: "request-timeout", Value: defaultRequestTimeout,
				Usage: "answer a client's request with an error, and cancel it on the server, when the server has not answered within `DURATION` (0: never)"},
			&cli.StringFlag{Name: "separator", Value: "__", Usage: "with several servers: the `SEP` in SERVER" + "__" + "NAME, the names of their tools and prompts"},
			&cli.StringSliceFlag{Name: "allow", Usage: "lend only the tools matching `GLOB`, as SERVER__TOOL or TOOL (repeatable)"},
			&cli.StringSliceFlag{Name: "deny", Usage: "do not lend the tools matching `GLOB`, as SERVER__TOOL or TOOL (repeatable)"},
			&cli.BoolFlag{Name: "read-only", Usage: "lend only the tools annotated readOnlyHint: true"},
			&cli.StringFlag{Name: "log", TakesFile: true, Usage: "append one JSON line per client request to `FILE`"},
			&cli.BoolFlag{Name: "log-arguments", Usage: "with --log: log each tool call's arguments too (redacted)"},
		),
		Metadata: helptext.Examples(
			"an MCP host's server command that lends the github entry", "mcpc serve github",
			"the same over Streamable HTTP on a free loopback port", "mcpc serve github --http 127.0.0.1:0",
			"three servers as one: their tools are github__NAME, db__NAME, docs__NAME", "mcpc serve github db docs",
			"only its read-only tools, each request logged", "mcpc serve github --read-only --log calls.jsonl",
		),
		Action: func(ctx context.Context, cmd *cli.Command) error {
			g, err := st.readGlobals(cmd)
			if err != nil {
				return err
			}
			if err := st.openRecord(g); err != nil {
				return err
			}
			defer st.closeRecord(g)
			servers, err := serveArgs(g, cmd.Args().Slice(), cmd.String("separator"))
			if err != nil {
				return err
			}
			var l *serve.Listen
			if l, err = serveListen(cmd, st, g); err != nil {
				return err
			}
			pol, err := servePolicy(cmd, st)
			if err != nil {
				return err
			}
			if pol.Log != nil {
				defer pol.Log.Close()
			}
			// serve lives until its clients go: --timeout bounds no call
			// of its own, so it does not bound serve.
			if cmd.Duration("idle") < 0 {
				return usagef("give --idle 0 (never) or a duration, e.g. --idle 30m", "--idle cannot be negative")
			}
			if cmd.Duration("request-timeout") < 0 {
				return usagef("give --request-timeout 0 (never) or a duration, e.g. --request-timeout 2m", "--request-timeout cannot be negative")
			}
			return runServe(ctx, st, g, serveOptions{servers: servers, separator: cmd.String("separator"), listen: l, policy: pol,
				idle: cmd.Duration("idle"), requestTimeout: cmd.Duration("request-timeout")})
		},
	}
}

// serveHTTPFlags are --http and what goes with it (serveListen reads
// them): serve's and mock's, one set of rules.
func serveHTTPFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "http", Usage: "serve Streamable HTTP at `HOST:PORT` (endpoint /mcp) instead of stdio"},
		&cli.BoolFlag{Name: "no-auth", Usage: "with --http on loopback: let any local process in, without a bearer token"},
		&cli.StringFlag{Name: "tls-cert", Usage: "with --http: serve HTTPS with the certificate in `FILE`"},
		&cli.StringFlag{Name: "tls-key", Usage: "with --http: the certificate's key in `FILE`"},
		&cli.BoolFlag{Name: "insecure-http", Usage: "with --http off loopback: serve plain HTTP (the token travels in the clear)"},
	}
}

// separatorOK says sep may stand between SERVER and NAME: 1 to 8 of
// what a function name may hold in every major LLM API.
func separatorOK(sep string) bool {
	if sep == "" || len(sep) > 8 {
		return false
	}
	for _, r := range sep {
		if !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == '.' || r == '-') {
			return false
		}
	}
	return true
}

// serveArgs reads serve's SERVERs: one target as every command takes it,
// or several configured servers lent as one, by their names.
func serveArgs(g *globals, args []string, sep string) ([]string, error) {
	if len(args) <= 1 {
		s, err := soleTarget(g, args)
		return []string{s}, err
	}
	if g.adhoc.IsStdio() {
		return nil, usagef("lend a --stdio server alone, or give it an entry (mcpc config add)", "--stdio names the one server served: got %d SERVERs too", len(args))
	}
	if !separatorOK(sep) {
		return nil, usagef("give 1 to 8 of A-Z a-z 0-9 _ . -", "--separator %q cannot stand in a tool's name", sep)
	}
	seen := map[string]bool{}
	for _, a := range args {
		switch {
		case config.IsURL(a):
			return nil, usagef("give it an entry (mcpc config add NAME URL) and name that", "several servers are lent by their names: %s is a URL", textsafe.Name(a))
		case seen[a]:
			return nil, usagef("name each server once", "%s is named twice", textsafe.Name(a))
		}
		seen[a] = true
	}
	return args, nil
}

// serveListen reads --http and what goes with it, checked before any
// server starts; nil for stdio. --bearer-env names the token clients
// must send, so it is not the server's: it is taken off the target.
func serveListen(cmd *cli.Command, st *state, g *globals) (*serve.Listen, error) {
	addr := cmd.String("http")
	if addr == "" {
		for _, f := range []string{"no-auth", "tls-cert", "tls-key", "insecure-http"} {
			if cmd.IsSet(f) {
				return nil, usagef("add --http HOST:PORT, or leave out --"+f, "--%s applies to --http only", f)
			}
		}
		return nil, nil
	}
	l := &serve.Listen{Addr: addr, NoAuth: cmd.Bool("no-auth"), TLSCert: cmd.String("tls-cert"), TLSKey: cmd.String("tls-key"),
		Insecure: cmd.Bool("insecure-http"), BearerEnv: g.adhoc.BearerEnv, TokenFile: filepath.Join(g.dirs.State, "serve", fmt.Sprintf("token-%d", os.Getpid()))}
	g.adhoc.BearerEnv = ""
	if l.BearerEnv != "" {
		if l.NoAuth {
			return nil, usagef("leave out one of them", "--no-auth and --bearer-env contradict each other")
		}
		if l.Bearer = st.env.Getenv(l.BearerEnv); l.Bearer == "" {
			return nil, usagef("set it to the token clients must send", "--bearer-env %s: the variable is empty or unset", l.BearerEnv)
		}
		st.secrets.Add(l.Bearer)
	}
	return l, l.Check()
}

// servePolicy reads --allow, --deny, --read-only and --log, checked
// before any server starts.
func servePolicy(cmd *cli.Command, st *state) (*serve.Policy, error) {
	p := &serve.Policy{Allow: cmd.StringSlice("allow"), Deny: cmd.StringSlice("deny"), ReadOnly: cmd.Bool("read-only")}
	for _, f := range []string{"allow", "deny"} {
		for _, pat := range cmd.StringSlice(f) {
			if err := config.CheckToolPattern(pat); err != nil {
				return nil, usagef("", "--%s %q: %v", f, pat, err)
			}
		}
	}
	if cmd.Bool("log-arguments") && !cmd.IsSet("log") {
		return nil, usagef("add --log FILE, or leave out --log-arguments", "--log-arguments applies to --log only")
	}
	if path := cmd.String("log"); path != "" {
		var err error
		if p.Log, err = serve.OpenCallLog(path, st.secrets, cmd.Bool("log-arguments")); err != nil {
			return nil, usagef("", "cannot open the --log file: %v", err)
		}
	}
	return p, nil
}

// serveOptions is what mcpc serve was asked.
type serveOptions struct {
	servers   []string // one target, or several configured names
	separator string
	listen    *serve.Listen // nil: stdio
	policy    *serve.Policy // --allow, --deny, --read-only, --log
	idle      time.Duration // --idle: 0, never
	// requestTimeout is --request-timeout: 0, never.
	requestTimeout time.Duration
}

// defaultRequestTimeout bounds the wait for one answer: long enough for
// a slow tool (a long one should be a task, which answers at once), and
// a server that hangs does not hold a client's request, and its share of
// serve's limits, for ever.
const defaultRequestTimeout = 10 * time.Minute

// runServe lends the servers to their clients: on stdin and stdout, or
// over HTTP as o.listen says.
func runServe(ctx context.Context, st *state, g *globals, o serveOptions) error {
	c := st.connector(g)
	o.policy.Aggregated, o.policy.Separator = len(o.servers) > 1, o.separator
	ups := make([]*serve.Upstream, 0, len(o.servers))
	hows := make([]string, 0, len(o.servers))
	for _, name := range o.servers {
		up, done, err := c.ServeUpstream(ctx, name)
		if err != nil {
			return err
		}
		defer done()
		up.Policy, up.RequestTimeout = o.policy, o.requestTimeout
		how := "held by serve"
		if up.Session != "" {
			how = "through its session (" + up.SessionEra.String() + ")"
		}
		ups, hows = append(ups, up), append(hows, how)
	}
	if o.listen == nil && len(ups) == 1 {
		textsafe.Note(st.env.Stderr, "serving %s on stdio, %s", ups[0].Name, hows[0])
	} else {
		for i, up := range ups {
			textsafe.Note(st.env.Stderr, "%s: %s", up.Name, hows[i])
		}
	}
	var b serve.Backend = ups[0]
	name := cmp.Or(o.servers[0], "served")
	ends := []serve.Endpoint{{Path: "/mcp", Backend: b}}
	if len(ups) > 1 {
		b, name = &serve.Aggregate{Servers: ups, Names: o.servers, Separator: o.separator, Version: buildinfo.Name(),
			Log: func(msg string) { textsafe.Note(st.env.Stderr, "%s", msg) }}, "served"
		ends = []serve.Endpoint{{Path: "/mcp", Backend: b}}
	}
	for i, up := range ups {
		ends = append(ends, serve.Endpoint{Path: "/mcp/" + url.PathEscape(cmp.Or(o.servers[i], "served")), Backend: up})
	}
	ctx, idle := serve.NewIdle(ctx, o.idle)
	defer idle.Stop()
	defer func() {
		if errors.Is(context.Cause(ctx), serve.ErrIdle) {
			textsafe.Note(st.env.Stderr, "no client asked for %s (--idle): serve ended", units.DurationText(o.idle))
		}
	}()
	if o.listen != nil {
		h := &serve.HTTP{Endpoints: ends, Secrets: st.secrets, MaxRequests: serve.DefaultMaxRequests, Idle: idle}
		return o.listen.Serve(ctx, h, name, st.env.Stderr)
	}
	if len(ups) > 1 {
		textsafe.Note(st.env.Stderr, "serving %s on stdio as one", b.Label())
	}
	in, ok := st.env.Stdin.(io.ReadCloser)
	if !ok {
		in = io.NopCloser(st.env.Stdin)
	}
	return serve.Stdio(ctx, b, in, st.env.Stdout, st.secrets, idle)
}
