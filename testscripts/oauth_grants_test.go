//go:build unix

package testscripts

import (
	"crypto/ecdsa"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"flag"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/rogpeppe/go-internal/testscript"
)

// The grants of workload identity and enterprise-managed authorization on
// the in-harness oauth-server: a CI platform whose tokens the server
// trusts (workloadKey), a fake GitHub Actions token service, and an
// enterprise identity provider at ISSUER/idp that exchanges its ID tokens
// for ID-JAGs (RFC 8693), which the token endpoint takes as jwt-bearer
// assertions from ent-client.

const (
	jwtBearerGrant     = "urn:ietf:params:oauth:grant-type:jwt-bearer"
	tokenExchangeGrant = "urn:ietf:params:oauth:grant-type:token-exchange"
	ciIssuer           = "https://ci.example"
	trustedWorkload    = "workload-1"
	idpClient          = "idp-client"
	entClient          = "ent-client"
)

// grantKeys are the signing keys of the CI platform and of the IdP.
type grantKeys struct {
	workload, idp *ecdsa.PrivateKey
	entSecret     string // ent-client's secret at the MCP authorization server
	ghToken       string // the request token the fake GitHub service wants
}

func (s *oauthServer) idpIssuer() string { return s.base + "/idp" }

// serveGrants adds the identity provider and the fake GitHub service.
func (s *oauthServer) serveGrants(mux *http.ServeMux) {
	mux.HandleFunc("GET /idp/.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, map[string]any{"issuer": s.idpIssuer(), "token_endpoint": s.idpIssuer() + "/token",
			"authorization_endpoint": s.idpIssuer() + "/authorize", "jwks_uri": s.idpIssuer() + "/jwks",
			"grant_types_supported":            []string{tokenExchangeGrant, "authorization_code", "refresh_token"},
			"code_challenge_methods_supported": []string{"S256"}, "response_types_supported": []string{"code"}})
	})
	mux.HandleFunc("GET /idp/authorize", s.idpAuthorize)
	mux.HandleFunc("POST /idp/token", s.idpToken)
	mux.HandleFunc("GET /github/token", s.githubToken)
}

// mint signs a token: a workload token (iss the CI platform, sub
// workload-1) or an ID token (iss the IdP, aud idp-client).
func (s *oauthServer) mint(kind, aud, sub string, expired bool) string {
	key, iss := s.keys.workload, ciIssuer
	if kind == "id" {
		key, iss = s.keys.idp, s.idpIssuer()
	}
	exp := time.Now().Add(5 * time.Minute)
	if expired {
		exp = time.Now().Add(-time.Minute)
	}
	t, _ := jwt.NewWithClaims(jwt.SigningMethodES256, jwt.RegisteredClaims{Issuer: iss, Subject: sub, Audience: jwt.ClaimStrings{aud},
		ExpiresAt: jwt.NewNumericDate(exp), IssuedAt: jwt.NewNumericDate(time.Now().Add(-2 * time.Minute)), ID: token("jti-")}).SignedString(key)
	return t
}

// oauth-mint URL workload|id VAR [-aud A] [-sub S] [-expired]: $VAR gets a
// token the server at URL trusts: a workload token (audience: the issuer)
// or an ID token of the IdP (audience: idp-client).
func cmdOAuthMint(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 3 || args[1] != "workload" && args[1] != "id" {
		ts.Fatalf("usage: oauth-mint URL workload|id VAR [-aud A] [-sub S] [-expired]")
	}
	s := oauthServerAt(ts, args[0])
	fs := flag.NewFlagSet("oauth-mint", flag.ContinueOnError)
	aud := fs.String("aud", "", "")
	sub := fs.String("sub", "", "")
	expired := fs.Bool("expired", false, "")
	ts.Check(fs.Parse(args[3:]))
	if *aud == "" {
		*aud = s.base
		if args[1] == "id" {
			*aud = idpClient
		}
	}
	if *sub == "" {
		*sub = trustedWorkload
		if args[1] == "id" {
			*sub = "user@example.com"
		}
	}
	ts.Setenv(args[2], s.mint(args[1], *aud, *sub, *expired))
}

func refuse(w http.ResponseWriter, status int, code, desc string) {
	writeJSON(w, status, map[string]string{"error": code, "error_description": desc})
}

// jwtBearer answers the jwt-bearer grant: an ID-JAG from the IdP (typ
// oauth-id-jag+jwt) with ent-client's HTTP Basic authentication, or a
// workload token from the CI platform. It returns the granted scope, or
// false after answering with an error.
func (s *oauthServer) jwtBearer(w http.ResponseWriter, r *http.Request) (string, bool) {
	assertion, scope := r.PostForm.Get("assertion"), r.PostForm.Get("scope")
	if hdr, _, err := jwt.NewParser().ParseUnverified(assertion, &jwt.MapClaims{}); err == nil && hdr.Header["typ"] == "oauth-id-jag+jwt" {
		if id, secret, ok := r.BasicAuth(); !ok || id != entClient || s.keys.entSecret == "" || secret != s.keys.entSecret {
			refuse(w, 401, "invalid_client", "client authentication failed")
			return "", false
		}
		var c struct {
			jwt.RegisteredClaims
			ClientID string `json:"client_id"`
			Resource string `json:"resource"`
		}
		_, err := jwt.ParseWithClaims(assertion, &c, func(*jwt.Token) (any, error) { return &s.keys.idp.PublicKey, nil },
			jwt.WithValidMethods([]string{"ES256"}), jwt.WithAudience(s.base), jwt.WithIssuer(s.idpIssuer()), jwt.WithExpirationRequired(), jwt.WithTimeFunc(s.now))
		if err != nil || c.ClientID != entClient || c.Resource != s.base+"/mcp" {
			refuse(w, 400, "invalid_grant", "the ID-JAG is not for this client and resource")
			return "", false
		}
		return scope, true
	}
	var c jwt.RegisteredClaims
	_, err := jwt.ParseWithClaims(assertion, &c, func(*jwt.Token) (any, error) { return &s.keys.workload.PublicKey, nil },
		jwt.WithValidMethods([]string{"ES256"}), jwt.WithAudience(s.base), jwt.WithIssuer(ciIssuer), jwt.WithExpirationRequired())
	switch {
	case errors.Is(err, jwt.ErrTokenExpired):
		refuse(w, 400, "invalid_grant", "JWT assertion is expired")
	case errors.Is(err, jwt.ErrTokenInvalidAudience):
		refuse(w, 400, "invalid_grant", "JWT assertion audience is invalid")
	case err != nil:
		refuse(w, 400, "invalid_grant", "JWT assertion verification failed")
	case c.Subject != trustedWorkload:
		// The description carries a terminal escape: mcpc must strip it.
		refuse(w, 400, "unauthorized_client", "workload \x1b]0;owned\x07"+c.Subject+" is not trusted")
	case strings.Contains(" "+scope+" ", " mcp:admin "):
		refuse(w, 400, "invalid_scope", "mcp:admin is not granted to workloads")
	default:
		return scope, true
	}
	return "", false
}

// idpAuthorize is the identity provider's authorization endpoint (OpenID
// Connect, for idp-client on a loopback redirect): it approves at once,
// keeping the PKCE challenge and the nonce with the code.
func (s *oauthServer) idpAuthorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	redirect := q.Get("redirect_uri")
	switch {
	case q.Get("client_id") != idpClient || !sameRedirect("http://127.0.0.1/callback", redirect):
		http.Error(w, "unknown client or redirect_uri", 400)
		return
	case q.Get("response_type") != "code", q.Get("code_challenge_method") != "S256", q.Get("code_challenge") == "",
		q.Get("state") == "", q.Get("nonce") == "", !strings.Contains(" "+q.Get("scope")+" ", " openid "):
		http.Error(w, "PKCE S256, state, nonce and the openid scope required", 400)
		return
	}
	code := token("IDPSECRET-code-")
	s.mu.Lock()
	s.codes[code] = authCode{client: idpClient, redirect: redirect, challenge: q.Get("code_challenge"), scope: q.Get("scope"), nonce: q.Get("nonce")}
	s.mu.Unlock()
	http.Redirect(w, r, redirect+"?"+url.Values{"code": {code}, "state": {q.Get("state")}, "iss": {s.idpIssuer()}}.Encode(), http.StatusFound)
}

// mintID signs an ID token of the IdP for a login (nonce) or a refresh
// (no nonce), spoiled as oauth-idp-bad asks.
func (s *oauthServer) mintID(nonce string) string {
	s.mu.Lock()
	bad := s.idpBad
	s.mu.Unlock()
	c := jwt.MapClaims{"iss": s.idpIssuer(), "sub": "user@example.com", "aud": idpClient, "iat": s.now().Unix(),
		"exp": s.now().Add(time.Duration(s.idpTTL) * time.Second).Unix()}
	if nonce != "" {
		c["nonce"] = nonce
	}
	switch bad {
	case "nonce":
		c["nonce"] = "not-the-nonce"
	case "aud":
		c["aud"] = "other-client"
	case "iss":
		c["iss"] = s.idpIssuer() + "/"
	}
	t, _ := jwt.NewWithClaims(jwt.SigningMethodES256, c).SignedString(s.keys.idp)
	return t
}

// oauth-idp-bad URL nonce|aud|iss|good: the IdP's ID tokens from now on
// carry a wrong nonce, audience or issuer (good: none of that).
func cmdOAuthIdPBad(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 || !slices.Contains([]string{"nonce", "aud", "iss", "good"}, args[1]) {
		ts.Fatalf("usage: oauth-idp-bad URL nonce|aud|iss|good")
	}
	s := oauthServerAt(ts, args[0])
	s.mu.Lock()
	s.idpBad = strings.TrimPrefix(args[1], "good")
	s.mu.Unlock()
}

// idpLogin answers the OpenID Connect grants at the IdP's token endpoint:
// the code (PKCE checked), counted as "idp-code", and the refresh token
// (rotated), counted as "idp-refresh". Both return an ID token.
func (s *oauthServer) idpLogin(w http.ResponseWriter, f url.Values) {
	nonce := ""
	s.mu.Lock()
	switch f.Get("grant_type") {
	case "authorization_code":
		s.counts["idp-code"]++
		c, ok := s.codes[f.Get("code")]
		delete(s.codes, f.Get("code"))
		sum := sha256.Sum256([]byte(f.Get("code_verifier")))
		if !ok || c.client != f.Get("client_id") || c.redirect != f.Get("redirect_uri") || base64.RawURLEncoding.EncodeToString(sum[:]) != c.challenge {
			s.mu.Unlock()
			refuse(w, 400, "invalid_grant", "wrong code, verifier or redirect_uri")
			return
		}
		nonce = c.nonce
	default:
		s.counts["idp-refresh"]++
		_, ok := s.refresh[f.Get("refresh_token")]
		delete(s.refresh, f.Get("refresh_token"))
		if !ok || f.Get("client_id") != idpClient {
			s.mu.Unlock()
			refuse(w, 400, "invalid_grant", "unknown refresh token")
			return
		}
	}
	rt := token("IDPSECRET-RT-")
	s.refresh[rt] = "openid"
	s.mu.Unlock()
	writeJSON(w, 200, map[string]any{"access_token": token("IDPSECRET-AT-"), "token_type": "Bearer", "expires_in": s.idpTTL,
		"id_token": s.mintID(nonce), "refresh_token": rt})
}

// idpToken is the identity provider's token endpoint: RFC 8693 token
// exchange of its ID token (audience idp-client) for an ID-JAG naming the
// audience and resource asked for, counted as "idp"; the OpenID Connect
// grants go to idpLogin.
func (s *oauthServer) idpToken(w http.ResponseWriter, r *http.Request) {
	r.ParseForm()
	f := r.PostForm
	if g := f.Get("grant_type"); g == "authorization_code" || g == "refresh_token" {
		s.idpLogin(w, f)
		return
	}
	s.mu.Lock()
	s.counts["idp"]++
	s.mu.Unlock()
	if f.Get("grant_type") != tokenExchangeGrant || f.Get("requested_token_type") != "urn:ietf:params:oauth:token-type:id-jag" ||
		f.Get("subject_token_type") != "urn:ietf:params:oauth:token-type:id_token" || f.Get("audience") != s.base ||
		f.Get("resource") != s.base+"/mcp" || f.Get("client_id") != idpClient {
		refuse(w, 400, "invalid_request", "not a token exchange for an ID-JAG")
		return
	}
	var c jwt.RegisteredClaims
	if _, err := jwt.ParseWithClaims(f.Get("subject_token"), &c, func(*jwt.Token) (any, error) { return &s.keys.idp.PublicKey, nil },
		jwt.WithValidMethods([]string{"ES256"}), jwt.WithAudience(idpClient), jwt.WithIssuer(s.idpIssuer()), jwt.WithExpirationRequired(), jwt.WithTimeFunc(s.now)); err != nil {
		refuse(w, 400, "invalid_grant", "the ID token is not valid for "+idpClient)
		return
	}
	jag := jwt.NewWithClaims(jwt.SigningMethodES256, jwt.MapClaims{"iss": s.idpIssuer(), "sub": c.Subject, "aud": f.Get("audience"),
		"client_id": entClient, "resource": f.Get("resource"), "scope": f.Get("scope"), "jti": token("jti-"),
		"iat": time.Now().Unix(), "exp": time.Now().Add(5 * time.Minute).Unix()})
	jag.Header["typ"] = "oauth-id-jag+jwt"
	signed, _ := jag.SignedString(s.keys.idp)
	writeJSON(w, 200, map[string]any{"access_token": signed, "issued_token_type": "urn:ietf:params:oauth:token-type:id-jag", "token_type": "N_A"})
}

// githubToken is GitHub Actions' OIDC token service: the request token as
// a bearer, the audience in the query; it signs a workload token for that
// audience. Requests are counted as "github".
func (s *oauthServer) githubToken(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.counts["github"]++
	s.mu.Unlock()
	if r.Header.Get("Authorization") != "bearer "+s.keys.ghToken || r.URL.Query().Get("api-version") != "2.0" {
		http.Error(w, "bad request token", http.StatusUnauthorized)
		return
	}
	aud := r.URL.Query().Get("audience")
	if aud == "" {
		http.Error(w, "no audience", http.StatusBadRequest)
		return
	}
	writeJSON(w, 200, map[string]string{"value": s.mint("workload", aud, trustedWorkload, false)})
}
