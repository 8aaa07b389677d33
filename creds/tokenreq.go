package creds

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"golang.org/x/oauth2"

	"github.com/mcpc-dev/mcpc/internal/redact"
)

type tokenResponse struct {
	AccessToken  string
	TokenType    string
	RefreshToken string
	Scope        string
	IDToken      string // OpenID Connect's, from an identity provider
	Expiry       time.Time
}

// tokenError is an OAuth error response (RFC 6749 section 5.2). Only the
// code and description are kept: never the request, which holds secrets.
type tokenError struct {
	Status      int
	Code        string
	Description string
}

func (e *tokenError) Error() string {
	s := fmt.Sprintf("the token endpoint answered HTTP %d", e.Status)
	if e.Code != "" {
		s += ": " + e.Code
	}
	if e.Description != "" {
		s += " (" + e.Description + ")"
	}
	return s
}

// tokenRequest posts one grant to a token endpoint with the client
// authentication the registration chose. Empty parameters are left out.
func tokenRequest(ctx context.Context, hc *http.Client, tokenURL, clientID, secret string, style oauth2.AuthStyle, params map[string]string, now time.Time) (*tokenResponse, error) {
	form := url.Values{}
	for k, v := range params {
		if v != "" {
			form.Set(k, v)
		}
	}
	registerSent(ctx, secret, params)
	basic := secret != "" && style != oauth2.AuthStyleInParams
	if !basic {
		// A workload-identity request without "clientId" sends none: the
		// assertion names the workload.
		if clientID != "" {
			form.Set("client_id", clientID)
		}
		if secret != "" {
			form.Set("client_secret", secret)
		}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, tokenURL, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if basic {
		// RFC 6749 section 2.3.1: form-encode both parts first.
		req.SetBasicAuth(url.QueryEscape(clientID), url.QueryEscape(secret))
		redact.Add(ctx, strings.TrimPrefix(req.Header.Get("Authorization"), "Basic "))
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, err
	}
	var raw struct {
		AccessToken  string `json:"access_token"`
		TokenType    string `json:"token_type"`
		RefreshToken string `json:"refresh_token"`
		Scope        string `json:"scope"`
		IDToken      string `json:"id_token"`
		ExpiresIn    any    `json:"expires_in"`
		Error        string `json:"error"`
		Description  string `json:"error_description"`
	}
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if ct == "application/x-www-form-urlencoded" || ct == "text/plain" {
		v, _ := url.ParseQuery(string(body))
		raw.AccessToken, raw.TokenType, raw.RefreshToken, raw.Scope = v.Get("access_token"), v.Get("token_type"), v.Get("refresh_token"), v.Get("scope")
		raw.Error, raw.Description, raw.ExpiresIn = v.Get("error"), v.Get("error_description"), v.Get("expires_in")
	} else if err := json.Unmarshal(body, &raw); err != nil && resp.StatusCode < 300 {
		return nil, fmt.Errorf("the token endpoint answered HTTP %d with a body that is not JSON", resp.StatusCode)
	}
	if resp.StatusCode >= 300 || raw.Error != "" {
		return nil, &tokenError{Status: resp.StatusCode, Code: raw.Error, Description: raw.Description}
	}
	if raw.AccessToken == "" {
		return nil, fmt.Errorf("the token endpoint answered without an access_token")
	}
	redact.Add(ctx, raw.AccessToken, raw.RefreshToken, raw.IDToken)
	out := &tokenResponse{AccessToken: raw.AccessToken, TokenType: raw.TokenType, RefreshToken: raw.RefreshToken, Scope: raw.Scope, IDToken: raw.IDToken}
	var secs float64
	switch v := raw.ExpiresIn.(type) {
	case float64:
		secs = v
	case string:
		secs, _ = strconv.ParseFloat(v, 64)
	}
	if d, ok := expiresIn(secs); ok {
		out.Expiry = now.Add(d)
	}
	return out, nil
}

// secretParams are the token request parameters that carry secrets: the
// invocation's redaction set gets their values.
var secretParams = []string{"client_secret", "client_assertion", "assertion", "subject_token", "actor_token", "refresh_token", "code", "code_verifier"}

// registerSent registers the secrets a token request sends (the client
// secret and the values of secretParams) for redaction: a token endpoint
// may quote the request back in its error_description.
func registerSent(ctx context.Context, secret string, params map[string]string) {
	redact.Add(ctx, secret)
	for _, k := range secretParams {
		redact.Add(ctx, params[k])
	}
}

// maxExpiresIn is the longest lifetime an expires_in is taken for. Past
// about 292 years a time.Duration overflows to a negative value, so
// expires_in: 1e10 read as is makes the token expired on arrival and each
// use fetches another; a year is longer than any token is meant to live.
const maxExpiresIn = 365 * 24 * time.Hour

// expiresIn is the lifetime expires_in (seconds) gives a token, clamped to
// maxExpiresIn; false when it gives none (absent, zero, negative, NaN).
func expiresIn(secs float64) (time.Duration, bool) {
	if !(secs > 0) {
		return 0, false
	}
	if secs >= maxExpiresIn.Seconds() {
		return maxExpiresIn, true
	}
	return time.Duration(secs * float64(time.Second)), true
}
