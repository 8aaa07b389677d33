package config

import (
	"slices"
	"testing"

	"github.com/mcpc-dev/mcpc/internal/fail"
)

// The entry's headers and env expand ${VAR} from the given environment;
// a failure names the server by the label given and the header or
// variable, never the value.
func TestHeadersAndEnviron(t *testing.T) {
	env := map[string]string{"TOK": "t1", "NL": "a\r\nX-Evil: 1"}
	getenv := func(k string) string { return env[k] }
	srv := &Server{Headers: map[string]string{"X-A": "${TOK}", "X-B": "${NOPE:-d}"}, BearerTokenEnv: "TOK",
		Env: map[string]string{"B": "${TOK}", "A": "x"}}
	h, err := Headers(srv, "server \"s\"", getenv)
	if err != nil || h.Get("X-A") != "t1" || h.Get("X-B") != "d" || h.Get("Authorization") != "Bearer t1" {
		t.Fatalf("Headers = %v, %v", h, err)
	}
	if got, err := Environ(srv, "server \"s\"", getenv); err != nil || !slices.Equal(got, []string{"A=x", "B=t1"}) {
		t.Fatalf("Environ = %q, %v", got, err)
	}
	for _, tc := range []struct {
		srv  *Server
		env  bool
		code fail.Code
		want string
	}{
		{&Server{Headers: map[string]string{"X": "${NOPE}"}}, false, fail.Config, `s: header "X": environment variable NOPE is not set`},
		{&Server{Headers: map[string]string{"X": "${NL}"}}, false, fail.Config, `s: header "X": its value (after ${VAR} expansion) contains a control character such as CR or LF`},
		{&Server{literalHeaders: map[string]string{"X": "a\nb"}}, false, fail.Usage, `--header "X": its value contains a control character such as CR or LF`},
		{&Server{BearerTokenEnv: "NOPE"}, false, fail.AuthRequired, `s needs a bearer token from the environment variable NOPE, which is not set`},
		{&Server{Env: map[string]string{"E": "${NOPE}"}}, true, fail.Config, `s: env "E": environment variable NOPE is not set`},
	} {
		var err error
		if tc.env {
			_, err = Environ(tc.srv, "s", getenv)
		} else {
			_, err = Headers(tc.srv, "s", getenv)
		}
		if err == nil || err.Error() != tc.want || fail.CodeOf(err) != tc.code {
			t.Errorf("got %v (code %s), want %q (code %s)", err, fail.CodeOf(err), tc.want, tc.code)
		}
	}
}
