package creds

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"strings"

	"golang.org/x/oauth2"

	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/fsx"
	"github.com/mcpc-dev/mcpc/internal/redact"
)

// GitHubActions is the "assertionFrom" value that asks GitHub Actions for
// a fresh OIDC token.
const GitHubActions = "github-actions"

// The variables GitHub Actions sets in a job with "permissions: id-token:
// write", and only then.
const (
	ghURLVar   = "ACTIONS_ID_TOKEN_REQUEST_URL"
	ghTokenVar = "ACTIONS_ID_TOKEN_REQUEST_TOKEN"
)

// GitHubVars are those variables, for a caller that checks them without
// requesting a token (mcpc list).
var GitHubVars = []string{ghURLVar, ghTokenVar}

// jwtBearer is the RFC 7523 grant type, for workload tokens and ID-JAGs.
const jwtBearer = "urn:ietf:params:oauth:grant-type:jwt-bearer"

// maxAssertion bounds a workload token or ID token read from a file or a
// platform: a signed JWT is a few KiB.
const maxAssertion = 64 << 10

// WorkloadOptions configure workload identity federation (SEP-1933, the
// MCP extension io.modelcontextprotocol/auth/wif): the CI platform's
// short-lived signed token is the credential, exchanged for an access
// token with the RFC 7523 jwt-bearer grant. No secret, no registration, no
// browser, no keyring.
type WorkloadOptions struct {
	Grant // ClientID is sent only when set

	// Exactly one source of the workload token: a variable, a file
	// (already resolved against the config file) or GitHubActions.
	AssertionEnv  string
	AssertionFile string
	AssertionFrom string
	Audience      string // what GitHub Actions puts in "aud"; "": Issuer

	Getenv func(string) string
}

// Workload is the auth.OAuthHandler of workload identity: one jwt-bearer
// token request at connect time, the access token in memory only.
type Workload struct {
	inMemory
	audience  string
	assertion string   // from the variable or file; GitHub's is fetched on use
	gh        ghSource // set for GitHubActions
}

type ghSource struct{ url, bearer string }

// NewWorkload finds the workload token, or says what is missing and how to
// provide it, before anything is contacted.
func NewWorkload(ctx context.Context, o WorkloadOptions) (*Workload, error) {
	w := &Workload{audience: o.Audience}
	if err := w.init(ctx, o.Grant, "workload-identity", "the workload identity",
		"check the audience the MCP server expects and the scopes the authorization server grants this workload", w.fetch); err != nil {
		return nil, err
	}
	if o.AssertionFrom == GitHubActions {
		for _, v := range GitHubVars {
			if o.Getenv(v) == "" {
				return nil, fail.New(fail.AuthRequired, `give the job "permissions: id-token: write" (GitHub sets `+ghURLVar+` and `+ghTokenVar+` only then)`,
					"%s needs a GitHub Actions OIDC token, but %s is not set", o.Server, v)
			}
		}
		w.gh = ghSource{o.Getenv(ghURLVar), o.Getenv(ghTokenVar)}
		return w, nil
	}
	var err error
	w.assertion, err = readToken(o.Getenv, o.Server, "workload token", o.AssertionEnv, o.AssertionFile,
		"export "+o.AssertionEnv+" with the workload's OIDC token (GitLab CI: an \"id_tokens:\" entry of that name)",
		`mount the token there (Kubernetes: a projected serviceAccountToken volume) or correct "assertionFile"`)
	if err != nil {
		return nil, err
	}
	return w, nil
}

// readToken reads a token a config names by variable (env) or file: unset,
// missing or empty is exit 4 with a hint saying how to provide it. A file
// is read again on each invocation, so a rotated token is picked up.
func readToken(getenv func(string) string, server, what, env, file, envHint, fileHint string) (string, error) {
	if env != "" {
		v := strings.TrimSpace(getenv(env))
		if v == "" {
			return "", fail.New(fail.AuthRequired, envHint, "%s needs its %s from the environment variable %s, which is not set", server, what, env)
		}
		return v, nil
	}
	data, err := fsx.ReadFile(file, maxAssertion)
	if errors.Is(err, fs.ErrNotExist) {
		return "", fail.New(fail.AuthRequired, fileHint, "%s needs its %s from %s, which does not exist", server, what, file)
	}
	if err != nil {
		return "", fail.Wrap(fail.AuthRequired, err, fileHint, "cannot read the %s of %s", what, server)
	}
	v := strings.TrimSpace(string(data))
	if v == "" {
		return "", fail.New(fail.AuthRequired, fileHint, "%s needs its %s from %s, which is empty", server, what, file)
	}
	return v, nil
}

func (w *Workload) fetch() (*Record, error) {
	m, err := w.metadata()
	if err != nil {
		return nil, err
	}
	if w.assertion == "" {
		if w.assertion, err = w.fromGitHub(); err != nil {
			return nil, err
		}
	}
	now := w.g.Now()
	params := map[string]string{
		"grant_type": jwtBearer,
		"assertion":  w.assertion,
		"resource":   w.g.Resource,
		"scope":      strings.Join(w.g.Scopes, " "),
	}
	// No retry and no other grant after a refusal: an expired or
	// misaddressed token stays so, and the server's answer is what the
	// user needs.
	tok, err := w.request(m.TokenEndpoint, w.g.ClientID, "", oauth2.AuthStyleInParams, params,
		"the authorization server refused the workload token of %s", refusalHint)
	if err != nil {
		return nil, err
	}
	return w.record(tok, now), nil
}

// refusalHint says what to check for the error code a token endpoint
// answered a jwt-bearer grant with.
func refusalHint(err error) string {
	var te *tokenError
	errors.As(err, &te)
	switch {
	case te == nil:
		return ""
	case te.Code == "invalid_scope":
		return `check "scopes" against what the authorization server grants this workload`
	case te.Code == "unauthorized_client":
		return "the authorization server does not let this workload use the jwt-bearer grant: ask its administrator to trust the workload's issuer and subject"
	}
	return `check the workload token: its audience (the authorization server's issuer, or "audience"), its expiry, and that the authorization server trusts its issuer`
}

// fromGitHub asks GitHub Actions for an OIDC token for the audience: GET
// ACTIONS_ID_TOKEN_REQUEST_URL&audience=… with the request token as bearer.
// It is not a token endpoint, so it gets a client of its own (no DPoP
// proof, no redirects).
func (w *Workload) fromGitHub() (string, error) {
	aud := w.audience
	if aud == "" {
		aud = w.g.Issuer
	}
	u, err := url.Parse(w.gh.url)
	if err == nil {
		err = checkEndpoint(w.gh.url)
	}
	if err != nil {
		return "", fail.New(fail.AuthRequired, "run inside a GitHub Actions job with \"permissions: id-token: write\"",
			"%s is not an https URL, so the GitHub Actions OIDC token cannot be requested", ghURLVar)
	}
	q := u.Query()
	q.Set("audience", aud)
	u.RawQuery = q.Encode()
	req, err := http.NewRequestWithContext(w.ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("Authorization", "bearer "+w.gh.bearer)
	redact.Add(w.ctx, w.gh.bearer)
	req.Header.Set("Accept", "application/json")
	resp, err := noRedirectClient().Do(req)
	if err != nil {
		// The URL carries nothing secret, but keep the message short.
		return "", fail.Wrap(fail.Connection, unwrapURL(err), "", "cannot request the GitHub Actions OIDC token for %s", w.g.Server)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxAssertion))
	var v struct {
		Value string `json:"value"`
	}
	if resp.StatusCode != http.StatusOK {
		return "", fail.New(fail.AuthFailed, `check that the job has "permissions: id-token: write"`,
			"GitHub Actions refused the OIDC token request for %s (HTTP %d)", w.g.Server, resp.StatusCode)
	}
	if json.Unmarshal(body, &v) != nil || v.Value == "" {
		return "", fail.New(fail.AuthFailed, "", "GitHub Actions answered the OIDC token request for %s without a token", w.g.Server)
	}
	redact.Add(w.ctx, v.Value)
	return v.Value, nil
}

// unwrapURL drops a *url.Error's method and URL from err's text.
func unwrapURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return fmt.Errorf("%w", ue.Err)
	}
	return err
}
