package config

import (
	"maps"
	"net/http"
	"slices"

	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/httpx"
)

// Headers are the HTTP headers srv says to send: its "headers" with
// ${VAR} expanded from getenv, the --header values as given, and the
// bearer token of "bearerTokenEnv". label names the server in messages.
func Headers(srv *Server, label string, getenv func(string) string) (http.Header, error) {
	headers := http.Header{}
	for _, k := range slices.Sorted(maps.Keys(srv.Headers)) {
		v, err := Expand(srv.Headers[k], getenv)
		if err != nil {
			return nil, fail.New(fail.Config, "export it, or give a default with ${VAR:-default}",
				"%s: header %q: %v", label, k, err)
		}
		// A line break would end the header early (and smuggle another);
		// the variable's value is never quoted in the message.
		if !httpx.ValidHeaderValue(v) {
			return nil, fail.New(fail.Config, "header values must be one line of printable text",
				"%s: header %q: its value (after ${VAR} expansion) contains a control character such as CR or LF", label, k)
		}
		headers.Set(k, v)
	}
	for k, v := range srv.LiteralHeaders() {
		if !httpx.ValidHeaderValue(v) {
			return nil, fail.New(fail.Usage, "header values must be one line of printable text",
				"--header %q: its value contains a control character such as CR or LF", k)
		}
		headers.Set(k, v)
	}
	if name := srv.BearerTokenEnv; name != "" {
		tok := getenv(name)
		if tok == "" {
			return nil, fail.New(fail.AuthRequired, "export "+name+" with the server's access token",
				"%s needs a bearer token from the environment variable %s, which is not set", label, name)
		}
		headers.Set("Authorization", "Bearer "+tok)
	}
	return headers, nil
}

// Environ is srv's "env" as NAME=value lines, in name order, with ${VAR}
// expanded from getenv. label names the server in messages.
func Environ(srv *Server, label string, getenv func(string) string) ([]string, error) {
	var env []string
	for _, k := range slices.Sorted(maps.Keys(srv.Env)) {
		v, err := Expand(srv.Env[k], getenv)
		if err != nil {
			return nil, fail.New(fail.Config, "export it, or give a default with ${VAR:-default}",
				"%s: env %q: %v", label, k, err)
		}
		env = append(env, k+"="+v)
	}
	return env, nil
}
