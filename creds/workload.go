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
	"time"

	"golang.org/x/oauth2"

	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/fsx"
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
	Server   string // the server's name, for messages
	Resource string // the MCP endpoint, sent as the RFC 8707 resource
	// Issuer is the authorization server's exact issuer identifier.
	Issuer   string
	ClientID string // sent only when set
	Scopes   []string

	// Exactly one source of the workload token: a variable, a file
	// (already resolved against the config file) or GitHubActions.
	AssertionEnv  string
	AssertionFile string
	AssertionFrom string
	Audience      string // what GitHub Actions puts in "aud"; "": Issuer

	Getenv     func(string) string
	HTTPClient *http.Client // nil: a client that follows no redirects
	Now        func() time.Time
}

// Workload is the auth.OAuthHandler of workload identity: one jwt-bearer
// token request at connect time, the access token in memory only.
type Workload struct {
	inMemory
	o         WorkloadOptions
	ctx       context.Context
	assertion string   // from the variable or file; GitHub's is fetched on use
	gh        ghSource // set for GitHubActions
	meta      *asMetadata
}

type ghSource struct{ url, bearer string }

// NewWorkload finds the workload token, or says what is missing and how to
// provide it, before anything is contacted.
func NewWorkload(ctx context.Context, o WorkloadOptions) (*Workload, error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.HTTPClient == nil {
		o.HTTPClient = noRedirectClient()
	}
	w := &Workload{o: o, ctx: ctx}
	w.inMemory = inMemory{server: o.Server, kind: "workload-identity", asked: "the workload identity", now: o.Now, fetch: w.fetch,
		rejectHint: "check the audience the MCP server expects and the scopes the authorization server grants this workload"}
	if o.AssertionFrom == GitHubActions {
		for _, v := range []string{ghURLVar, ghTokenVar} {
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
	if w.meta == nil {
		m, err := issuerMetadata(w.ctx, w.o.HTTPClient, w.o.Server, w.o.Issuer, "authorization server", "issuer")
		if err != nil {
			return nil, err
		}
		w.meta = m
	}
	if w.assertion == "" {
		a, err := w.fromGitHub()
		if err != nil {
			return nil, err
		}
		w.assertion = a
	}
	now := w.o.Now()
	tok, err := tokenRequest(w.ctx, w.o.HTTPClient, w.meta.TokenEndpoint, w.o.ClientID, "", oauth2.AuthStyleInParams, map[string]string{
		"grant_type": jwtBearer,
		"assertion":  w.assertion,
		"resource":   w.o.Resource,
		"scope":      strings.Join(w.o.Scopes, " "),
	}, now)
	if err != nil {
		// No retry and no other grant: an expired or misaddressed token
		// stays so, and the server's answer is what the user needs.
		return nil, fail.Wrap(fail.AuthFailed, boundedRefusal(err), refusalHint(err),
			"the authorization server refused the workload token of %s", w.o.Server)
	}
	return &Record{AccessToken: tok.AccessToken, Expiry: tok.Expiry, Obtained: now}, nil
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
	aud := w.o.Audience
	if aud == "" {
		aud = w.o.Issuer
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
	req.Header.Set("Accept", "application/json")
	resp, err := noRedirectClient().Do(req)
	if err != nil {
		// The URL carries nothing secret, but keep the message short.
		return "", fail.Wrap(fail.Connection, unwrapURL(err), "", "cannot request the GitHub Actions OIDC token for %s", w.o.Server)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxAssertion))
	var v struct {
		Value string `json:"value"`
	}
	if resp.StatusCode != http.StatusOK {
		return "", fail.New(fail.AuthFailed, `check that the job has "permissions: id-token: write"`,
			"GitHub Actions refused the OIDC token request for %s (HTTP %d)", w.o.Server, resp.StatusCode)
	}
	if json.Unmarshal(body, &v) != nil || v.Value == "" {
		return "", fail.New(fail.AuthFailed, "", "GitHub Actions answered the OIDC token request for %s without a token", w.o.Server)
	}
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
