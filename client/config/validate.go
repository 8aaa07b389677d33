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

// maxServerName is the most bytes a server's name has.
const maxServerName = 128

// validName accepts server names of at most 128 letters, digits, '_', '.'
// and '-', not starting with '-'.
func validName(s string) bool {
	if s == "" || len(s) > maxServerName || s[0] == '-' {
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
	for _, check := range serverChecks {
		key, msg := check(s, src)
		if msg == "" {
			continue
		}
		// A problem with one key is located at that key, others at the
		// server.
		at := off
		if k, ok := keys[key]; ok && key != "" {
			at = k
		}
		return configErr(path, data, at, "server %q: %s", name, msg)
	}
	return nil
}

// serverChecks are the checks of one server definition, in the order
// their problems are reported: each returns what is wrong, or "", and the
// key to locate it at ("" for the server).
var serverChecks = []func(s *Server, src Source) (key, msg string){
	checkTransport,
	checkVarPlaces,
	checkHTTPFields,
	checkStdioFields,
	checkToolPatterns,
	checkValues,
	checkHelpers,
}

// checkTransport checks "type" and that it agrees with "command" or "url".
func checkTransport(s *Server, _ Source) (string, string) {
	if s.Type != "" && s.Type != "stdio" && s.Type != "sse" && !slices.Contains(httpTypes, s.Type) {
		return "type", fmt.Sprintf(`type %q is not a transport mcpc speaks (use "stdio", "http", "streamable-http" or "sse")`, s.Type)
	}
	switch {
	case s.Command == "" && s.URL == "":
		return "", `needs "command" (stdio) or "url" (Streamable HTTP)`
	case s.Command != "" && s.URL != "":
		return "", `has both "command" and "url"; a server is either stdio or HTTP`
	case s.Type == "stdio" && s.URL != "":
		return "type", `type "stdio" needs "command", not "url"`
	case s.TransportPin("") != "" && s.Command != "":
		return "type", fmt.Sprintf(`type %q needs "url", not "command"`, s.Type)
	}
	return "", ""
}

// checkVarPlaces refuses ${VAR} where it would not be expanded.
func checkVarPlaces(s *Server, _ Source) (string, string) {
	for field, v := range map[string]string{"command": s.Command, "cwd": s.Cwd, "url": s.URL, "envFile": s.EnvFile} {
		if hasVar(v) {
			return "", fmt.Sprintf("${VAR} is only expanded in \"env\" and \"headers\" values, not in %q", field)
		}
	}
	for _, a := range s.Args {
		if hasVar(a) {
			return "", `${VAR} is only expanded in "env" and "headers" values, not in "args"`
		}
	}
	return "", ""
}

// checkHTTPFields checks an HTTP server's URL and refuses what applies to
// stdio servers only.
func checkHTTPFields(s *Server, _ Source) (string, string) {
	if s.URL == "" {
		return "", ""
	}
	if err := CheckURL(s.URL); err != nil {
		return "", err.Error()
	}
	switch {
	case len(s.Env) > 0 || s.Cwd != "" || len(s.Args) > 0:
		return "", `"args", "env" and "cwd" apply to stdio servers only`
	case s.ServerStderr != "":
		return "", `"serverStderr" applies to stdio servers only`
	case s.EnvFile != "":
		return "envFile", `"envFile" applies to stdio servers only`
	case (s.ClientCertFile == "") != (s.ClientKeyFile == ""):
		return "", `"clientCertFile" and "clientKeyFile" go together`
	}
	return "", ""
}

// checkStdioFields refuses, on a stdio server, what applies to HTTP
// servers only.
func checkStdioFields(s *Server, _ Source) (string, string) {
	switch {
	case s.URL != "":
		return "", ""
	case len(s.Headers) > 0 || s.BearerTokenEnv != "" || s.Auth != nil:
		return "", `"headers", "bearerTokenEnv" and "auth" apply to HTTP servers only`
	case s.HeadersCommand != nil || s.BearerTokenCommand != nil || s.HeadersTTL != 0:
		return "", `"headersCommand", "bearerTokenCommand" and "headersTtl" apply to HTTP servers only`
	case s.DPoP != nil:
		return "", `"dpop" applies to HTTP servers only`
	case s.CAFile != "" || s.ClientCertFile != "" || s.ClientKeyFile != "":
		return "", `"caFile", "clientCertFile" and "clientKeyFile" apply to HTTP servers only`
	}
	return "", ""
}

// checkToolPatterns checks the patterns of "includeTools" and
// "excludeTools".
func checkToolPatterns(s *Server, _ Source) (string, string) {
	for _, f := range []struct {
		key  string
		pats []string
	}{{"includeTools", s.IncludeTools}, {"excludeTools", s.ExcludeTools}} {
		for i, p := range f.pats {
			if err := CheckToolPattern(p); err != nil {
				return f.key, fmt.Sprintf("%s[%d] %q: %v", f.key, i, p, err)
			}
		}
	}
	return "", ""
}

// checkValues checks the protocol, the ${VAR} references in header and
// env values, the variable names and the "auth" block.
func checkValues(s *Server, src Source) (string, string) {
	if s.Protocol != "" && !slices.Contains(Protocols, s.Protocol) {
		return "", fmt.Sprintf("unknown protocol %q (use one of %s)", s.Protocol, strings.Join(Protocols, ", "))
	}
	for k, v := range s.Headers {
		if err := checkInterp(v); err != nil {
			return "", fmt.Sprintf("header %q: %s", k, err)
		}
		// A project file is shared through version control: a literal token
		// there is a leaked secret, so insist on a variable.
		if src == SourceProject && strings.EqualFold(k, "authorization") && !hasVar(v) {
			return "", fmt.Sprintf("header %q holds a literal secret; put the token in an environment variable and use \"bearerTokenEnv\" or ${VAR}", k)
		}
	}
	for k, v := range s.Env {
		if err := checkInterp(v); err != nil {
			return "", fmt.Sprintf("env %q: %s", k, err)
		}
	}
	if s.BearerTokenEnv != "" && !validEnvName(s.BearerTokenEnv) {
		return "", fmt.Sprintf("bearerTokenEnv %q is not an environment variable name", s.BearerTokenEnv)
	}
	if s.Auth != nil {
		return "", checkAuth(s.Auth)
	}
	return "", ""
}

// maxHelperArgs bounds a credential helper's command line.
const maxHelperArgs = 256

// checkHelpers checks the credential helpers: one way to authenticate, a
// command to run, and "headersTtl" only beside one.
func checkHelpers(s *Server, _ Source) (string, string) {
	argv, key := s.HelperCommand()
	switch {
	case s.HeadersCommand != nil && s.BearerTokenCommand != nil:
		return "", `give "headersCommand" or "bearerTokenCommand", not both`
	case argv == nil && s.HeadersTTL != 0:
		return "headersTtl", `"headersTtl" is how long a "headersCommand" or "bearerTokenCommand" is trusted: give one`
	case argv == nil:
		return "", ""
	case s.BearerTokenEnv != "" || s.Auth != nil:
		return key, fmt.Sprintf(`%q and "bearerTokenEnv" or "auth" are two ways to authenticate: give one`, key)
	case len(argv) == 0 || argv[0] == "":
		return key, fmt.Sprintf(`%q needs a command: ["program", "arg", …]`, key)
	case len(argv) > maxHelperArgs:
		return key, fmt.Sprintf("%q has %d words; at most %d are taken", key, len(argv), maxHelperArgs)
	}
	for _, a := range argv {
		if strings.ContainsRune(a, 0) {
			return key, fmt.Sprintf("%q holds a NUL byte", key)
		}
		if hasVar(a) {
			return key, fmt.Sprintf("${VAR} is only expanded in \"env\" and \"headers\" values, not in %q: the command reads its environment itself", key)
		}
	}
	return "", ""
}

// authKeys are the "auth" keys each type uses beyond "type"; any other key
// that is set is an error, so a setting never silently does nothing.
func authKeys(typ string) ([]string, bool) {
	// A switch, not a map: nothing is made at init (mcpc --version).
	switch typ {
	case "oauth":
		return []string{"clientId", "clientSecretEnv", "clientMetadataUrl", "scopes", "redirectPort", "issuer"}, true
	case "client_credentials":
		return []string{"clientId", "clientSecretEnv", "scopes", "issuer", "clientAssertionKeyFile", "clientAssertionAlg"}, true
	case "workload":
		return []string{"issuer", "assertionEnv", "assertionFile", "assertionFrom", "clientId", "audience", "scopes"}, true
	case "enterprise":
		return []string{"issuer", "clientId", "clientSecretEnv", "clientAssertionKeyFile", "clientAssertionAlg", "idp", "idTokenEnv", "idTokenFile", "scopes"}, true
	}
	return nil, false
}

// authNeeds checks, for the auth types that have any, which keys must be
// set together: what is missing, or "".
func authNeeds(typ string) func(a *Auth) string {
	switch typ {
	case "client_credentials":
		return needsClientCredentials
	case "workload":
		return needsWorkload
	case "enterprise":
		return needsEnterprise
	}
	return nil
}

// checkAuth is what is wrong with an "auth" block, or "".
func checkAuth(a *Auth) string {
	keys, ok := authKeys(a.Type)
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
	if needs := authNeeds(a.Type); needs != nil {
		return needs(a)
	}
	return ""
}

func needsClientCredentials(a *Auth) string {
	if a.ClientID == "" || a.Issuer == "" {
		return `auth type "client_credentials" needs "clientId" and "issuer"`
	}
	if (a.ClientSecretEnv == "") == (a.ClientAssertionKeyFile == "") {
		return `auth type "client_credentials" needs exactly one of "clientSecretEnv" and "clientAssertionKeyFile"`
	}
	return ""
}

func needsWorkload(a *Auth) string {
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
	return ""
}

func needsEnterprise(a *Auth) string {
	if a.ClientID == "" || a.Issuer == "" || a.IdP == nil || a.IdP.Issuer == "" || a.IdP.ClientID == "" {
		return `auth type "enterprise" needs "clientId", "issuer" and "idp" with its "issuer" and "clientId"`
	}
	if (a.ClientSecretEnv == "") == (a.ClientAssertionKeyFile == "") {
		return `auth type "enterprise" needs exactly one of "clientSecretEnv" and "clientAssertionKeyFile"`
	}
	if a.IDTokenEnv != "" && a.IDTokenFile != "" {
		return `auth type "enterprise" takes at most one of "idTokenEnv" and "idTokenFile"`
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
