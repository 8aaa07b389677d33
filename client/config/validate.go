package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/mcpc-dev/mcpc/internal/urlx"
)

// Validation of one server definition: names, ${VAR} interpolation and the
// URL rules. Parsing (config.go) locates a problem; these say what it is.

// validName accepts server names of at most 128 letters, digits, '_', '.'
// and '-', not starting with '-'.
func validName(s string) bool {
	if s == "" || len(s) > 128 || s[0] == '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !isWordByte(c) && c != '.' && c != '-' {
			return false
		}
	}
	return true
}

// validEnvName accepts what a shell accepts as a variable name.
func validEnvName(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isWordByte(s[i]) {
			return false
		}
	}
	return true
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// varRE is compiled on first use, not at start-up, and only for text that
// holds "${": most invocations never meet one.
var varRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\$\{[^}]*\}`) })

func hasVar(v string) bool { return strings.Contains(v, "${") && varRE().MatchString(v) }

func validateServer(path string, src Source, name string, s *Server, data []byte, off int64, keys map[string]int64) error {
	fail := func(format string, args ...any) error {
		return configErr(path, data, off, "server %q: %s", name, fmt.Sprintf(format, args...))
	}
	// failAt locates a problem with one key at that key.
	failAt := func(key, format string, args ...any) error {
		if k, ok := keys[key]; ok {
			return configErr(path, data, k, "server %q: %s", name, fmt.Sprintf(format, args...))
		}
		return fail(format, args...)
	}
	switch s.Type {
	case "", "stdio", "sse":
	default:
		if !slices.Contains(httpTypes, s.Type) {
			return failAt("type", `type %q is not a transport mcpc speaks (use "stdio", "http", "streamable-http" or "sse")`, s.Type)
		}
	}
	switch {
	case s.Command == "" && s.URL == "":
		return fail(`needs "command" (stdio) or "url" (Streamable HTTP)`)
	case s.Command != "" && s.URL != "":
		return fail(`has both "command" and "url"; a server is either stdio or HTTP`)
	case s.Type == "stdio" && s.URL != "":
		return failAt("type", `type "stdio" needs "command", not "url"`)
	case s.TransportPin("") != "" && s.Command != "":
		return failAt("type", `type %q needs "url", not "command"`, s.Type)
	}
	for field, v := range map[string]string{"command": s.Command, "cwd": s.Cwd, "url": s.URL, "envFile": s.EnvFile} {
		if hasVar(v) {
			return fail("${VAR} is only expanded in \"env\" and \"headers\" values, not in %q", field)
		}
	}
	for _, a := range s.Args {
		if hasVar(a) {
			return fail(`${VAR} is only expanded in "env" and "headers" values, not in "args"`)
		}
	}
	if s.URL != "" {
		if err := CheckURL(s.URL); err != nil {
			return fail("%s", err)
		}
		if len(s.Env) > 0 || s.Cwd != "" || len(s.Args) > 0 {
			return fail(`"args", "env" and "cwd" apply to stdio servers only`)
		}
		if s.ServerStderr != "" {
			return fail(`"serverStderr" applies to stdio servers only`)
		}
		if s.EnvFile != "" {
			return failAt("envFile", `"envFile" applies to stdio servers only`)
		}
		if (s.ClientCertFile == "") != (s.ClientKeyFile == "") {
			return fail(`"clientCertFile" and "clientKeyFile" go together`)
		}
	} else if len(s.Headers) > 0 || s.BearerTokenEnv != "" || s.Auth != nil {
		return fail(`"headers", "bearerTokenEnv" and "auth" apply to HTTP servers only`)
	} else if s.DPoP != nil {
		return fail(`"dpop" applies to HTTP servers only`)
	} else if s.CAFile != "" || s.ClientCertFile != "" || s.ClientKeyFile != "" {
		return fail(`"caFile", "clientCertFile" and "clientKeyFile" apply to HTTP servers only`)
	}
	for _, f := range []struct {
		key  string
		pats []string
	}{{"includeTools", s.IncludeTools}, {"excludeTools", s.ExcludeTools}} {
		for i, p := range f.pats {
			if err := checkToolPattern(p); err != nil {
				return failAt(f.key, "%s[%d] %q: %v", f.key, i, p, err)
			}
		}
	}
	if s.Protocol != "" && !slices.Contains(Protocols, s.Protocol) {
		return fail("unknown protocol %q (use one of %s)", s.Protocol, strings.Join(Protocols, ", "))
	}
	for k, v := range s.Headers {
		if err := checkInterp(v); err != nil {
			return fail("header %q: %s", k, err)
		}
		// A project file is shared through version control: a literal token
		// there is a leaked secret, so insist on a variable.
		if src == SourceProject && strings.EqualFold(k, "authorization") && !hasVar(v) {
			return fail("header %q holds a literal secret; put the token in an environment variable and use \"bearerTokenEnv\" or ${VAR}", k)
		}
	}
	for k, v := range s.Env {
		if err := checkInterp(v); err != nil {
			return fail("env %q: %s", k, err)
		}
	}
	if s.BearerTokenEnv != "" && !validEnvName(s.BearerTokenEnv) {
		return fail("bearerTokenEnv %q is not an environment variable name", s.BearerTokenEnv)
	}
	if a := s.Auth; a != nil {
		if msg := checkAuth(a); msg != "" {
			return fail("%s", msg)
		}
	}
	return nil
}

// authKeys are the "auth" keys each type uses beyond "type"; any other key
// that is set is an error, so a setting never silently does nothing.
var authKeys = map[string][]string{
	"oauth":              {"clientId", "clientSecretEnv", "clientMetadataUrl", "scopes", "redirectPort", "issuer"},
	"client_credentials": {"clientId", "clientSecretEnv", "scopes", "issuer", "clientAssertionKeyFile", "clientAssertionAlg"},
	"workload":           {"issuer", "assertionEnv", "assertionFile", "assertionFrom", "clientId", "audience", "scopes"},
	"enterprise":         {"issuer", "clientId", "clientSecretEnv", "clientAssertionKeyFile", "clientAssertionAlg", "idp", "idTokenEnv", "idTokenFile", "scopes"},
}

// checkAuth is what is wrong with an "auth" block, or "".
func checkAuth(a *Auth) string {
	keys, ok := authKeys[a.Type]
	if !ok {
		return fmt.Sprintf(`unknown auth type %q (use "oauth", "client_credentials", "workload" or "enterprise")`, a.Type)
	}
	set, _ := json.Marshal(a)
	var present map[string]json.RawMessage
	json.Unmarshal(set, &present)
	for _, k := range allowedKeys()["auth"] {
		if _, on := present[k]; on && k != "type" && !slices.Contains(keys, k) {
			return fmt.Sprintf(`auth type %q does not use %q`, a.Type, k)
		}
	}
	envs := map[string]string{"clientSecretEnv": a.ClientSecretEnv, "assertionEnv": a.AssertionEnv, "idTokenEnv": a.IDTokenEnv}
	if a.IdP != nil {
		envs["idp.clientSecretEnv"] = a.IdP.ClientSecretEnv
	}
	for _, k := range slices.Sorted(maps.Keys(envs)) {
		if v := envs[k]; v != "" && !validEnvName(v) {
			return fmt.Sprintf("%s %q is not an environment variable name", k, v)
		}
	}
	switch a.Type {
	case "client_credentials":
		if a.ClientID == "" || a.Issuer == "" {
			return `auth type "client_credentials" needs "clientId" and "issuer"`
		}
		if (a.ClientSecretEnv == "") == (a.ClientAssertionKeyFile == "") {
			return `auth type "client_credentials" needs exactly one of "clientSecretEnv" and "clientAssertionKeyFile"`
		}
	case "workload":
		if a.Issuer == "" {
			return `auth type "workload" needs "issuer": the authorization server that trusts the workload's tokens`
		}
		n := 0
		for _, v := range []string{a.AssertionEnv, a.AssertionFile, a.AssertionFrom} {
			if v != "" {
				n++
			}
		}
		if n != 1 {
			return `auth type "workload" needs exactly one of "assertionEnv", "assertionFile" and "assertionFrom"`
		}
		if a.AssertionFrom != "" && a.AssertionFrom != "github-actions" {
			return fmt.Sprintf(`unknown "assertionFrom" %q (use "github-actions", or "assertionEnv"/"assertionFile" for other platforms)`, a.AssertionFrom)
		}
		if a.Audience != "" && a.AssertionFrom == "" {
			return `"audience" applies to "assertionFrom": "github-actions" only: other platforms put the audience in the token when they issue it`
		}
	case "enterprise":
		if a.ClientID == "" || a.Issuer == "" || a.IdP == nil || a.IdP.Issuer == "" || a.IdP.ClientID == "" {
			return `auth type "enterprise" needs "clientId", "issuer" and "idp" with its "issuer" and "clientId"`
		}
		if (a.ClientSecretEnv == "") == (a.ClientAssertionKeyFile == "") {
			return `auth type "enterprise" needs exactly one of "clientSecretEnv" and "clientAssertionKeyFile"`
		}
		if a.IDTokenEnv != "" && a.IDTokenFile != "" {
			return `auth type "enterprise" takes at most one of "idTokenEnv" and "idTokenFile"`
		}
	}
	return ""
}

func checkInterp(v string) error {
	if !strings.Contains(v, "${") {
		return nil
	}
	for _, m := range varRE().FindAllString(v, -1) {
		name := strings.TrimSuffix(strings.TrimPrefix(m, "${"), "}")
		name, _, _ = strings.Cut(name, ":-")
		if !validEnvName(name) {
			return fmt.Errorf("%s is not a valid ${VAR} reference", m)
		}
	}
	return nil
}

// Expand replaces ${VAR} and ${VAR:-default} in v with values from getenv.
// Nothing else is interpreted: no shell, no command substitution. A variable
// that is unset and has no default is an error naming it.
func Expand(v string, getenv func(string) string) (string, error) {
	if !strings.Contains(v, "${") {
		return v, nil
	}
	var missing string
	out := varRE().ReplaceAllStringFunc(v, func(m string) string {
		name, def, hasDef := strings.Cut(m[2:len(m)-1], ":-")
		if val := getenv(name); val != "" {
			return val
		}
		if hasDef {
			return def
		}
		if missing == "" {
			missing = name
		}
		return ""
	})
	if missing != "" {
		return "", fmt.Errorf("environment variable %s is not set", missing)
	}
	return out, nil
}

// CheckURL enforces mcpc's URL rules: https, or http only on a loopback
// host; no credentials in the URL; no other schemes.
func CheckURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		// url.Error quotes the whole URL: say what is wrong without it.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return fmt.Errorf("invalid URL %q: %v", urlx.Redact(raw), err)
	}
	if u.User != nil {
		return fmt.Errorf("URL %q contains credentials; use \"bearerTokenEnv\" or headers with ${VAR}", urlx.Redact(raw))
	}
	raw = urlx.Redact(raw)
	switch u.Scheme {
	case "https":
	case "http":
		if !urlx.IsLoopback(u.Hostname()) {
			return fmt.Errorf("URL %q uses plain http on a non-loopback host; use https", raw)
		}
	default:
		return fmt.Errorf("URL %q: scheme %q is not supported (use https, or http on loopback)", raw, u.Scheme)
	}
	if u.Host == "" {
		return fmt.Errorf("URL %q has no host", raw)
	}
	return nil
}
