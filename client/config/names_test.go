package config

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The name checks are hand-written to keep regexp compilation out of
// start-up; they must accept exactly what these expressions accept.
func TestNameChecksMatchTheirExpressions(t *testing.T) {
	nameRE := regexp.MustCompile(`^[A-Za-z0-9_.][A-Za-z0-9_.-]*$`)
	envRE := regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	cases := []string{"", "a", "A", "_", ".", "-", "0", "9a", "a-b", "-a", "a.b", "a b", "a\n", "ä",
		"github", "my_server.v2-beta", "A_1", "1A", "a$", "a-", "x\x00", strings.Repeat("a", 128), strings.Repeat("a", 129)}
	for c := 0; c < 256; c++ {
		cases = append(cases, string(rune(c)), "a"+string(byte(c)), string(byte(c))+"a")
	}
	for _, s := range cases {
		if got, want := validName(s), len(s) <= 128 && nameRE.MatchString(s); got != want {
			t.Errorf("validName(%q) = %v, want %v", s, got, want)
		}
		if got, want := validEnvName(s), envRE.MatchString(s); got != want {
			t.Errorf("validEnvName(%q) = %v, want %v", s, got, want)
		}
	}
}

// The accepted keys are derived from the structs' JSON tags: each is the
// bare name (no ",omitempty"), in field order, which the hints rely on.
func TestAllowedKeysFromTags(t *testing.T) {
	for name, c := range map[string]struct{ got, want []string }{
		"server":  {allowedKeys()["server"], []string{"type", "command", "args", "env", "cwd", "url", "headers", "protocol", "timeout", "probeTimeout", "maxMessage", "bearerTokenEnv", "headersCommand", "bearerTokenCommand", "headersTtl", "auth", "dpop", "serverStderr", "caFile", "clientCertFile", "clientKeyFile", "disabled", "includeTools", "excludeTools", "envFile", "keepAlive", "record"}},
		"auth":    {allowedKeys()["auth"], []string{"type", "clientId", "clientSecretEnv", "clientMetadataUrl", "scopes", "redirectPort", "issuer", "clientAssertionKeyFile", "clientAssertionAlg", "assertionEnv", "assertionFile", "assertionFrom", "audience", "idp", "idTokenEnv", "idTokenFile"}},
		"idp":     {allowedKeys()["idp"], []string{"issuer", "clientId", "clientSecretEnv", "tokenEndpoint", "scopes"}},
		"carried": {carried(), []string{"type", "command", "args", "env", "cwd", "url", "serverUrl", "httpUrl", "headers", "disabled", "envFile", "includeTools", "excludeTools", "headersHelper"}},
	} {
		if !slices.Equal(c.got, c.want) {
			t.Errorf("%s keys = %q, want %q", name, c.got, c.want)
		}
	}
}
