package config

import (
	"context"
	"strings"
	"time"

	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/shellwords"
	"github.com/mcpc-dev/mcpc/internal/units"
)

// addUsage is the hint of a 'mcpc config add' that names no server.
const addUsage = "mcpc config add NAME URL, or mcpc config add NAME -- COMMAND ARGS"

// ParseAdd reads the server 'mcpc config add' writes: args are NAME and a
// URL, or NAME alone with the command in a (after -- or in --stdio); env
// are the --env KEY=VALUE words; a's headers, bearer variable and protocol
// go with it as given (${VAR} in them is expanded when the server is used).
func ParseAdd(args, env []string, a AdHoc) (string, *Server, error) {
	if len(args) == 0 {
		return "", nil, fail.New(fail.Usage, addUsage, "missing NAME")
	}
	s := &Server{}
	switch {
	case len(args) == 2 && !a.IsStdio():
		if !IsURL(args[1]) {
			return "", nil, fail.New(fail.Usage, "give a URL, or the command after --", "%q is not an http(s) URL", args[1])
		}
		s.URL = args[1]
	case len(args) > 2:
		return "", nil, fail.New(fail.Usage, "", "unexpected argument %q", args[2])
	case len(args) == 2:
		return "", nil, fail.New(fail.Usage, "", "give either a URL or a command, not both")
	case len(a.Argv) > 0:
		s.Command, s.Args = a.Argv[0], a.Argv[1:]
	case a.Stdio != "":
		argv, err := shellwords.Split(a.Stdio)
		if err != nil || len(argv) == 0 {
			return "", nil, fail.New(fail.Usage, "", "--stdio: cannot split %q", a.Stdio)
		}
		s.Command, s.Args = argv[0], argv[1:]
	default:
		return "", nil, fail.New(fail.Usage, addUsage, "missing the server's URL or command")
	}
	for _, kv := range env {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			// Only the key: what follows "=" may be a secret.
			return "", nil, fail.New(fail.Usage, "write --env KEY=VALUE", "bad --env %q: expected KEY=VALUE", k)
		}
		if s.Env == nil {
			s.Env = map[string]string{}
		}
		s.Env[k] = v
	}
	for _, h := range a.Headers {
		k, v, err := ParseHeader(h)
		if err != nil {
			return "", nil, err
		}
		if s.Headers == nil {
			s.Headers = map[string]string{}
		}
		s.Headers[k] = v
	}
	s.BearerTokenEnv, s.Protocol = a.BearerEnv, a.Protocol
	return args[0], s, nil
}

// AddHelpers are the credential helper flags of 'mcpc config add': each
// command a line split into words as a shell would (never run by one).
type AddHelpers struct {
	HeadersCommand, BearerCommand, TTL string
}

// Set puts h's helpers on s; a line that cannot be split, or a TTL that is
// no duration, is a usage error.
func (h AddHelpers) Set(s *Server) error {
	for _, f := range []struct {
		flag, line string
		dst        *[]string
	}{{"--headers-command", h.HeadersCommand, &s.HeadersCommand}, {"--bearer-command", h.BearerCommand, &s.BearerTokenCommand}} {
		if f.line == "" {
			continue
		}
		argv, err := shellwords.Split(f.line)
		if err != nil || len(argv) == 0 {
			return fail.New(fail.Usage, "write the command as you would in a shell, in one quoted word", "%s: cannot split %q", f.flag, f.line)
		}
		*f.dst = argv
	}
	if h.TTL != "" {
		d, err := time.ParseDuration(h.TTL)
		if err != nil || d <= 0 {
			return fail.New(fail.Usage, `give a duration like "50m"`, "--headers-ttl: %q is not a duration", h.TTL)
		}
		s.HeadersTTL = units.Duration(d)
	}
	return nil
}

// Add sets server name to s in the file e names (EditFile, SetServer).
func (e ConfigEdit) Add(ctx context.Context, name string, s *Server) (*Edited, error) {
	return EditFile(ctx, e, func(data []byte) ([]byte, error) { return SetServer(data, name, s) })
}

// Remove deletes server name from the file e names (EditFile,
// RemoveServer); a name the file does not have is a config error.
func (e ConfigEdit) Remove(ctx context.Context, name string) (*Edited, error) {
	found := false
	f, err := EditFile(ctx, e, func(data []byte) ([]byte, error) {
		out, ok, err := RemoveServer(data, name)
		found = ok
		return out, err
	})
	if err == nil && !found {
		err = fail.New(fail.Config, "see the servers with: mcpc config", "%s has no server %q", e.Path, name)
	}
	return f, err
}

// UntrustedNote is the note for a project file the user edited but never
// trusted: its servers stay ignored (an edit keeps a trusted file
// trusted). Empty for any other file.
func (e *Edited) UntrustedNote() string {
	if e.Source != SourceProject || e.Trusted {
		return ""
	}
	return e.Path + " is not trusted; its servers are ignored until 'mcpc trust'"
}
