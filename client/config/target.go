package config

import (
	"maps"
	"net/http"
	"strings"

	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/shellwords"
)

// AdHoc holds the command-line parts that define or adjust a server without
// any config file.
type AdHoc struct {
	Stdio     string   // --stdio 'cmd args'
	Argv      []string // words after --
	Headers   []string // --header 'Name: value'
	BearerEnv string   // --bearer-env VAR
	Protocol  string
}

// IsStdio reports whether the command line itself names a stdio server.
func (a AdHoc) IsStdio() bool { return a.Stdio != "" || len(a.Argv) > 0 }

// IsURL reports whether a SERVER argument is a URL rather than a name.
func IsURL(arg string) bool {
	return strings.HasPrefix(arg, "https://") || strings.HasPrefix(arg, "http://")
}

// Resolve turns the SERVER argument (a configured name or a URL) or an
// ad-hoc stdio command into an Entry. Command-line headers and bearer
// variable apply on top of a configured HTTP server too.
func (c *Config) Resolve(arg string, a AdHoc) (*Entry, error) {
	var e *Entry
	switch {
	case a.IsStdio():
		argv, err := shellwords.Split(a.Stdio)
		if err != nil {
			return nil, fail.New(fail.Usage, "quote the whole command once: --stdio 'npx -y some-server --flag'", "invalid --stdio command: %v", err)
		}
		argv = append(argv, a.Argv...)
		if len(argv) == 0 {
			return nil, fail.New(fail.Usage, "", "--stdio needs a command")
		}
		// Named by its words quoted as a shell would need them, so that
		// the name says where each word ends and a hint can pass it back
		// to --stdio.
		e = &Entry{Name: shellwords.Join(argv), Server: &Server{Command: argv[0], Args: argv[1:]}}
	case IsURL(arg):
		if err := CheckURL(arg); err != nil {
			return nil, &fail.Error{Code: fail.Usage, Msg: err.Error(), Err: err}
		}
		e = &Entry{Name: arg, Server: &Server{URL: arg}}
	default:
		var err error
		if e, err = c.Lookup(arg); err != nil {
			return nil, err
		}
	}
	return a.Onto(e)
}

// Onto is e with the command line's headers and bearer variable on top:
// e itself when there are none, an error for a server not reached over
// HTTP. A session reached by its name takes them too, to compare with
// what it holds its server with.
func (a AdHoc) Onto(e *Entry) (*Entry, error) {
	if len(a.Headers) > 0 || a.BearerEnv != "" {
		if e.Server.URL == "" {
			return nil, fail.New(fail.Usage, "", "--header and --bearer-env apply to HTTP servers only")
		}
		srv := *e.Server
		srv.literalHeaders = maps.Clone(srv.literalHeaders)
		if srv.literalHeaders == nil {
			srv.literalHeaders = map[string]string{}
		}
		for _, h := range a.Headers {
			k, v, err := ParseHeader(h)
			if err != nil {
				return nil, err
			}
			// Values from the command line are literal: the shell has
			// already expanded what the user meant to expand.
			srv.literalHeaders[k] = v
		}
		if a.BearerEnv != "" {
			srv.BearerTokenEnv = a.BearerEnv
		}
		e = &Entry{Name: e.Name, Server: &srv, File: e.File}
	}
	return e, nil
}

// ParseHeader splits a --header word, 'Name: value'. A malformed one is a
// usage error that quotes only the first word, never the value: the word
// is often "Authorization Bearer <token>" with the colon forgotten.
func ParseHeader(h string) (name, value string, err error) {
	k, v, ok := strings.Cut(h, ":")
	k = strings.TrimSpace(k)
	if !ok || k == "" || strings.ContainsAny(k, " \t") {
		first, _, _ := strings.Cut(strings.TrimSpace(h), " ")
		first, _, _ = strings.Cut(first, ":")
		return "", "", fail.New(fail.Usage, "write it as --header 'Name: value'",
			"invalid --header starting %q: expected 'Name: value'", first)
	}
	return http.CanonicalHeaderKey(k), strings.TrimSpace(v), nil
}
