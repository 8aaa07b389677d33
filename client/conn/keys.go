package conn

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"

	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/client/state"
	"github.com/mcpc-dev/mcpc/internal/urlx"
)

// ServerKey identifies a server for the memo: for stdio its command line,
// configured environment and working directory; for HTTP its origin and
// path. A different key is a different server, never a stale verdict.
func ServerKey(e *config.Entry, cwd string) string {
	srv := e.Server
	if srv.URL != "" {
		u, err := url.Parse(srv.URL)
		if err != nil {
			return state.HashKey("http", srv.URL)
		}
		return state.HashKey("http", urlx.Origin(u)+u.EscapedPath())
	}
	parts := append([]string{"stdio", e.Dir(cwd), srv.Cwd, srv.Command}, srv.Args...)
	for _, k := range slices.Sorted(maps.Keys(srv.Env)) {
		parts = append(parts, k+"="+srv.Env[k])
	}
	if srv.EnvFile != "" {
		parts = append(parts, "envFile="+srv.EnvFile)
	}
	return state.HashKey(parts...)
}

// SessionKey identifies what a session started for e holds: the
// server's definition (its memo key) and the credential it is reached
// with (never the credential itself), so that a changed entry is noticed.
// It is the entry's content alone: a user entry run from another working
// directory is the same entry, not a changed one (a project file's is
// resolved against its own directory either way).
func SessionKey(e *config.Entry, credentialID string) string {
	return state.HashKey(ServerKey(e, e.Dir("")), credentialID)
}

// CredentialParts names, each hashed, what an invocation reaches e with
// that its definition does not fix: the credential (credentialID, a
// reference, never the secret); for a stdio server each "env" value
// expanded from the invocation's environment (${VAR}) and the envFile's
// variables; for an HTTP server each header expanded from it (${VAR}) and
// the bearer token of "bearerTokenEnv", and each --header. A session started with other
// parts holds another credential's server, which this invocation must
// not reach; a literal value is the definition's, whose change only makes
// the session stale. Values are keyed with memo's per-user secret
// (Memo.CredentialKey): a plain hash of a short token in a session record
// could be reversed offline. An error is the one connecting would meet
// (an unset variable, an unreadable envFile).
func CredentialParts(e *config.Entry, cwd, credentialID string, getenv func(string) string, memo *state.Memo) (map[string]string, error) {
	parts := map[string]string{}
	if credentialID != "" {
		parts["credential"] = state.HashKey("credential", credentialID)
	}
	srv := e.Server
	if srv.URL != "" {
		h, err := config.Headers(srv, e.Label(), getenv)
		if err != nil {
			return nil, err
		}
		for k, v := range srv.Headers {
			if strings.Contains(v, "${") {
				parts[fmt.Sprintf("header %q", k)] = memo.CredentialKey("header\x00" + k + "\x00" + h.Get(k))
			}
		}
		// A --header is the invocation's, never the definition's: an
		// Authorization given on the command line is a credential.
		for k := range srv.LiteralHeaders() {
			parts[fmt.Sprintf("header %q", k)] = memo.CredentialKey("header\x00" + k + "\x00" + h.Get(k))
		}
		if srv.BearerTokenEnv != "" {
			parts["bearerTokenEnv"] = memo.CredentialKey("bearer\x00" + getenv(srv.BearerTokenEnv))
		}
		return parts, nil
	}
	env, err := config.Environ(srv, e.Label(), getenv)
	if err != nil {
		return nil, err
	}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if strings.Contains(srv.Env[k], "${") {
			parts[fmt.Sprintf("env %q", k)] = memo.CredentialKey("env\x00" + k + "\x00" + v)
		}
	}
	if srv.EnvFile != "" {
		vars, err := e.EnvFileVars(cwd)
		if err != nil {
			return nil, err
		}
		parts["envFile"] = memo.CredentialKey(strings.Join(append([]string{"envFile"}, vars...), "\x00"))
	}
	return parts, nil
}
