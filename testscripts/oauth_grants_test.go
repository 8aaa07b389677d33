//go:build unix

package testscripts

import (
	"crypto/ecdsa"
	"errors"
	"flag"
	"net/http"
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
			"grant_types_supported": []string{tokenExchangeGrant}})
	})
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
			jwt.WithValidMethods([]string{"ES256"}), jwt.WithAudience(s.base), jwt.WithIssuer(s.idpIssuer()), jwt.WithExpirationRequired())
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

// idpToken is the identity provider's token endpoint: RFC 8693 token
// exchange of its ID token (audience idp-client) for an ID-JAG naming the
// audience and resource asked for. Requests are counted as "idp".
func (s *oauthServer) idpToken(w http.ResponseWriter, r *http.Request) {
	r.ParseForm()
	f := r.PostForm
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
		jwt.WithValidMethods([]string{"ES256"}), jwt.WithAudience(idpClient), jwt.WithIssuer(s.idpIssuer()), jwt.WithExpirationRequired()); err != nil {
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
