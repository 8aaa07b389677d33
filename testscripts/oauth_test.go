//go:build unix

// The harness signals processes and process groups: unix only.

package testscripts

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gofrs/flock"
	"github.com/golang-jwt/jwt/v5"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rogpeppe/go-internal/testscript"
)

// oauthServer is an OAuth authorization server and the MCP server it
// protects, on one loopback origin, inside the test process. It approves
// every authorization request at once (the user who follows the link says
// yes), rotates refresh tokens (a spent one is refused with invalid_grant)
// and counts token requests per grant type. Tokens carry a SECRET- prefix
// so scripts can check that none reaches mcpc's output.
type oauthServer struct {
	base     string
	now      func() time.Time // the script's clock (cmdClock)
	codeTTL  int              // seconds an access token from the code grant lives
	refTTL   int              // seconds a refreshed access token lives
	refDelay time.Duration
	hang     bool   // the first refresh request never gets an answer
	ccSecret string // client_credentials: cc-client's secret
	ccKey    *ecdsa.PublicKey
	mdIssuer string        // the issuer the metadata claims, when not the real one
	mdToken  string        // the token_endpoint the metadata names, when not the real one ("none": none)
	ttlMs    int           // cacheable results are fresh this long, and private
	early    bool          // the first access token is refused at once, as if revoked early
	closed   chan struct{} // closed when the server stops
	// DPoP (RFC 9449): dpop advertises ES256 and checks every proof; a
	// token request with one gets a token bound to its key (without, a
	// bearer token). dpopBearer answers bearer tokens anyway; dpopNonce
	// ("as", "rs", "both") demands server nonces; dpopNever ("as", "rs")
	// demands a new one on every request there.
	dpop       bool
	dpopBearer bool
	dpopNonce  string
	dpopNever  string
	keys       grantKeys // workload identity and enterprise (oauth_grants_test.go)
	idpTTL     int       // seconds the IdP's ID tokens from a login or refresh live
	expiresIn  string    // when set, the raw JSON of every token response's expires_in
	secretPost bool      // the metadata offers client_secret_post only
	regSecret  bool      // registration issues a client secret (client_secret_basic)

	mu      sync.Mutex
	echo    bool                // every token request is refused, its body and Authorization quoted (oauth_echo_test.go)
	echoed  []string            // the secrets the refusals quoted
	bounce  bool                // the refusal is a redirect, the request in its Location
	idpBad  string              // what the IdP's next ID tokens get wrong (oauth-idp-bad)
	issuer  string              // the authorization server the resource names now
	revoked map[string]bool     // client_ids the server no longer accepts
	clients map[string][]string // client_id → redirect URIs
	codes   map[string]authCode
	access  map[string]grant
	refresh map[string]string // refresh token → its scope
	rtJkt   map[string]string // refresh token → the key it is bound to
	jtis    map[string]bool   // every DPoP proof's jti seen
	nonces  map[string]int    // "as"/"rs" → how many nonces were handed out
	counts  map[string]int
	issued  int // access tokens issued
	lastRT  string
	// lastRTBy is the newest refresh token each grant type issued.
	lastRTBy map[string]string
}

type grant struct {
	expiry time.Time
	scope  string
	jkt    string // the thumbprint of the key a DPoP-bound token is bound to
}

type authCode struct {
	client, redirect, challenge, resource, scope string
	nonce                                        string // the IdP's (OpenID Connect)
}

var oauthServers sync.Map // URL → *oauthServer

func token(prefix string) string { return prefix + rand.Text() }

// oauth-server VAR [-code-ttl S] [-refresh-ttl S] [-refresh-delay D]
// [-hang-first-refresh] [-cc-secret S] [-cc-key FILE] [-metadata-issuer I]
// [-metadata-token-endpoint URL|none] [-private-ttl MS] [-revoke-first] [-sse]
// [-dpop [-dpop-bearer] [-dpop-nonce as|rs|both] [-dpop-nonce-never as|rs]]
// [-ent-secret S] [-idp-ttl S] [-expires-in JSON] [-echo-request] [-secret-post]
// [-login-client ID] [-register-secret]: start the server; $VAR gets the protected MCP endpoint,
// ${VAR}_ISSUER the issuer, ${VAR}_IDP the identity provider's issuer,
// ${VAR}_GITHUB_URL and ${VAR}_GITHUB_TOKEN what GitHub Actions would set.
func cmdOAuthServer(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 {
		ts.Fatalf("usage: oauth-server VAR [flags]")
	}
	fs := flag.NewFlagSet("oauth-server", flag.ContinueOnError)
	s := &oauthServer{clients: map[string][]string{}, revoked: map[string]bool{}, codes: map[string]authCode{}, access: map[string]grant{}, refresh: map[string]string{}, counts: map[string]int{},
		rtJkt: map[string]string{}, jtis: map[string]bool{}, nonces: map[string]int{}, lastRTBy: map[string]string{}}
	clk := ts.Getenv("MCPC_TEST_CLOCK")
	s.now = func() time.Time { return time.Now().Add(clockAhead(clk)) }
	fs.BoolVar(&s.dpop, "dpop", false, "")
	fs.BoolVar(&s.dpopBearer, "dpop-bearer", false, "")
	fs.StringVar(&s.dpopNonce, "dpop-nonce", "", "")
	fs.StringVar(&s.dpopNever, "dpop-nonce-never", "", "")
	fs.IntVar(&s.codeTTL, "code-ttl", 3600, "")
	fs.IntVar(&s.refTTL, "refresh-ttl", 3600, "")
	fs.DurationVar(&s.refDelay, "refresh-delay", 0, "")
	fs.BoolVar(&s.hang, "hang-first-refresh", false, "")
	fs.StringVar(&s.ccSecret, "cc-secret", "", "")
	ccKeyFile := fs.String("cc-key", "", "write an ES256 private key for cc-client here")
	fs.StringVar(&s.mdIssuer, "metadata-issuer", "", "")
	fs.StringVar(&s.mdToken, "metadata-token-endpoint", "", "")
	fs.IntVar(&s.ttlMs, "private-ttl", 0, "")
	fs.BoolVar(&s.early, "revoke-first", false, "")
	sse := fs.Bool("sse", false, "serve /mcp over the 2024-11-05 HTTP+SSE transport")
	fs.StringVar(&s.keys.entSecret, "ent-secret", "", "")
	fs.IntVar(&s.idpTTL, "idp-ttl", 3600, "")
	fs.StringVar(&s.expiresIn, "expires-in", "", "the raw JSON of expires_in in token responses")
	fs.BoolVar(&s.echo, "echo-request", false, "refuse token requests quoting them back in error_description")
	fs.BoolVar(&s.secretPost, "secret-post", false, "offer client_secret_post only")
	fs.BoolVar(&s.regSecret, "register-secret", false, "registration issues a client secret, for client_secret_basic")
	loginClient := fs.String("login-client", "", "a client ID registered in advance, for a login with a configured client")
	ts.Check(fs.Parse(args[1:]))
	if *loginClient != "" {
		s.clients[*loginClient] = []string{"http://127.0.0.1/callback"}
	}
	for _, k := range []**ecdsa.PrivateKey{&s.keys.workload, &s.keys.idp} {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		ts.Check(err)
		*k = key
	}
	s.keys.ghToken = token("GHSECRET-")
	mux := http.NewServeMux()
	if *ccKeyFile != "" {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		ts.Check(err)
		der, err := x509.MarshalPKCS8PrivateKey(key)
		ts.Check(err)
		ts.Check(os.WriteFile(ts.MkAbs(*ccKeyFile), pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600))
		s.ccKey = &key.PublicKey
	}
	srv := httptest.NewUnstartedServer(mux)
	srv.Listener.Close()
	srv.Listener = issuerListener(ts)
	s.closed = make(chan struct{})
	srv.Start()
	ts.Defer(func() { close(s.closed); srv.Close() })
	s.base = srv.URL
	s.issuer = s.base
	var sopts *mcp.ServerOptions
	if s.ttlMs > 0 {
		sopts = &mcp.ServerOptions{SetCacheable: func(_ context.Context, _ mcp.Request, c *mcp.Cacheable) {
			c.TTLMs, c.CacheScope = s.ttlMs, "private"
		}}
	}
	mcpSrv := mcp.NewServer(&mcp.Implementation{Name: "oauth-protected", Version: "1"}, sopts)
	type echoIn struct {
		Text string `json:"text"`
	}
	echo := func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
	}
	mcp.AddTool(mcpSrv, &mcp.Tool{Name: "echo", Description: "echo text"}, echo)
	// Calling "write" needs the mcp:write scope (step-up).
	mcp.AddTool(mcpSrv, &mcp.Tool{Name: "write", Description: "echo text, with mcp:write"}, echo)
	// "refuse" is answered with a JSON-RPC error in a 200, as a server
	// that rejects the call (not the tool failing) does.
	mcp.AddTool(mcpSrv, &mcp.Tool{Name: "refuse", Description: "always refused"}, func(context.Context, *mcp.CallToolRequest, echoIn) (*mcp.CallToolResult, any, error) {
		return nil, nil, &jsonrpc.Error{Code: -32000, Message: "not allowed for this client"}
	})
	var mcpHandler http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return mcpSrv }, &mcp.StreamableHTTPOptions{Stateless: true})
	if *sse {
		mcpHandler = mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return mcpSrv }, nil)
	}
	mux.Handle("/mcp", s.protect(mcpHandler))
	prm := func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		issuer := s.issuer
		s.mu.Unlock()
		writeJSON(w, 200, map[string]any{"resource": s.base + "/mcp", "authorization_servers": []string{issuer}, "scopes_supported": []string{"mcp:read"}})
	}
	mux.HandleFunc("GET /.well-known/oauth-protected-resource/mcp", prm)
	// Two authorization servers share the origin: the first, whose issuer
	// is the origin, and one at /as2 that oauth-migrate moves the resource
	// to. They share clients, codes and tokens; only their issuers differ.
	asMeta := func(w http.ResponseWriter, r *http.Request) {
		issuer := s.base + strings.TrimPrefix(r.URL.Path, "/.well-known/oauth-authorization-server")
		if s.mdIssuer != "" {
			issuer = s.mdIssuer
		}
		meta := map[string]any{
			"issuer": issuer, "authorization_endpoint": s.base + "/authorize", "token_endpoint": s.base + "/token",
			"registration_endpoint": s.base + "/register", "response_types_supported": []string{"code"},
			"grant_types_supported":                          []string{"authorization_code", "refresh_token"},
			"code_challenge_methods_supported":               []string{"S256"},
			"token_endpoint_auth_methods_supported":          []string{"none", "client_secret_basic", "private_key_jwt"},
			"scopes_supported":                               []string{"mcp:read", "mcp:write", "offline_access"},
			"authorization_response_iss_parameter_supported": true,
		}
		if s.dpop {
			meta["dpop_signing_alg_values_supported"] = []string{"ES256"}
		}
		if s.secretPost {
			meta["token_endpoint_auth_methods_supported"] = []string{"client_secret_post"}
		}
		switch s.mdToken {
		case "":
		case "none":
			delete(meta, "token_endpoint")
		default:
			meta["token_endpoint"] = s.mdToken
		}
		writeJSON(w, 200, meta)
	}
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", asMeta)
	mux.HandleFunc("GET /.well-known/oauth-authorization-server/as2", asMeta)
	mux.HandleFunc("POST /register", s.register)
	mux.HandleFunc("GET /authorize", s.authorize)
	mux.HandleFunc("POST /token", s.token)
	s.serveGrants(mux)
	oauthServers.Store(s.base+"/mcp", s)
	ts.Setenv(args[0], s.base+"/mcp")
	ts.Setenv(args[0]+"_ISSUER", s.base)
	ts.Setenv(args[0]+"_IDP", s.idpIssuer())
	ts.Setenv(args[0]+"_GITHUB_URL", s.base+"/github/token?api-version=2.0")
	ts.Setenv(args[0]+"_GITHUB_TOKEN", s.keys.ghToken)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func (s *oauthServer) protect(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		scheme, tok, _ := strings.Cut(r.Header.Get("Authorization"), " ")
		s.mu.Lock()
		g, ok := s.access[tok]
		s.mu.Unlock()
		// The scheme challenges name: DPoP where the server takes it.
		chScheme := "Bearer"
		if s.dpop {
			chScheme = "DPoP"
		}
		switch {
		case !ok:
		case g.jkt == "" && !strings.EqualFold(scheme, "Bearer"), g.jkt != "" && !strings.EqualFold(scheme, "DPoP"):
			ok = false
		case g.jkt != "":
			jkt, problem := s.checkProof(r, s.base+"/mcp", tok, "rs")
			if problem == "use_dpop_nonce" {
				w.Header().Set("DPoP-Nonce", s.currentNonce("rs"))
				w.Header().Set("WWW-Authenticate", `DPoP error="use_dpop_nonce", error_description="a nonce is required"`)
				http.Error(w, "nonce required", http.StatusUnauthorized)
				return
			}
			if problem == "" && jkt != g.jkt {
				problem = "the proof is not made with the key the token is bound to"
			}
			if problem != "" {
				w.Header().Set("WWW-Authenticate", fmt.Sprintf(`DPoP error="invalid_dpop_proof", error_description=%q`, problem))
				http.Error(w, "invalid DPoP proof: "+problem, http.StatusUnauthorized)
				return
			}
		}
		if ok && r.Body != nil {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			if bytes.Contains(body, []byte(`"name":"write"`)) && !strings.Contains(" "+g.scope+" ", " mcp:write ") {
				w.Header().Set("WWW-Authenticate", fmt.Sprintf(`%s error="insufficient_scope", scope="mcp:read mcp:write", resource_metadata="%s/.well-known/oauth-protected-resource/mcp"`, chScheme, s.base))
				http.Error(w, "insufficient scope", http.StatusForbidden)
				return
			}
		}
		if !ok || s.now().After(g.expiry) {
			ch := fmt.Sprintf(`%s resource_metadata="%s/.well-known/oauth-protected-resource/mcp", scope="mcp:read"`, chScheme, s.base)
			if tok != "" {
				ch += `, error="invalid_token"`
			}
			w.Header().Set("WWW-Authenticate", ch)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (s *oauthServer) register(w http.ResponseWriter, r *http.Request) {
	var md struct {
		RedirectURIs    []string `json:"redirect_uris"`
		ApplicationType string   `json:"application_type"`
	}
	if err := json.NewDecoder(r.Body).Decode(&md); err != nil || len(md.RedirectURIs) == 0 || md.ApplicationType != "native" {
		writeJSON(w, 400, map[string]string{"error": "invalid_client_metadata"})
		return
	}
	id := token("client-")
	s.mu.Lock()
	s.counts["register"]++
	s.clients[id] = md.RedirectURIs
	s.mu.Unlock()
	resp := map[string]any{"client_id": id, "redirect_uris": md.RedirectURIs, "token_endpoint_auth_method": "none"}
	if s.regSecret {
		resp["client_secret"], resp["token_endpoint_auth_method"] = token("regsecret-"), "client_secret_basic"
	}
	writeJSON(w, 201, resp)
}

func (s *oauthServer) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	s.mu.Lock()
	uris, known := s.clients[q.Get("client_id")]
	s.mu.Unlock()
	redirect := q.Get("redirect_uri")
	switch {
	case !known || redirect == "" || !slices.ContainsFunc(uris, func(u string) bool { return sameRedirect(u, redirect) }):
		http.Error(w, "unknown client or redirect_uri", 400)
		return
	case q.Get("response_type") != "code", q.Get("code_challenge_method") != "S256", q.Get("code_challenge") == "":
		http.Error(w, "PKCE S256 and response_type=code required", 400)
		return
	case q.Get("resource") != s.base+"/mcp":
		http.Error(w, "wrong resource", 400)
		return
	}
	code := token("code-")
	s.mu.Lock()
	s.codes[code] = authCode{client: q.Get("client_id"), redirect: redirect, challenge: q.Get("code_challenge"), resource: q.Get("resource"), scope: q.Get("scope")}
	s.mu.Unlock()
	s.mu.Lock()
	issuer := s.issuer
	s.mu.Unlock()
	to := redirect + "?" + url.Values{"code": {code}, "state": {q.Get("state")}, "iss": {issuer}}.Encode()
	http.Redirect(w, r, to, http.StatusFound)
}

// sameRedirect matches a redirect URI against a registered one as RFC 8252
// section 7.3 asks: on a loopback IP address, any port.
func sameRedirect(registered, got string) bool {
	if registered == got {
		return true
	}
	r, err1 := url.Parse(registered)
	g, err2 := url.Parse(got)
	return err1 == nil && err2 == nil && r.Scheme == "http" && g.Scheme == "http" &&
		r.Hostname() == "127.0.0.1" && g.Hostname() == "127.0.0.1" && r.Path == g.Path && r.RawQuery == g.RawQuery
}

func (s *oauthServer) token(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	echo := s.echo
	s.mu.Unlock()
	if echo {
		s.echoRequest(w, r)
		return
	}
	r.ParseForm()
	grantType := r.PostForm.Get("grant_type")
	s.mu.Lock()
	s.counts[grantType]++
	hang := s.hang && grantType == "refresh_token" && s.counts[grantType] == 1
	s.mu.Unlock()
	if hang {
		<-s.closed
		return
	}
	bad := func(code string) { writeJSON(w, 400, map[string]string{"error": code}) }
	if r.PostForm.Get("resource") != s.base+"/mcp" {
		bad("invalid_target")
		return
	}
	ttl, scope := s.codeTTL, ""
	jkt := ""
	if s.dpop && r.Header.Get("DPoP") != "" {
		var problem string
		jkt, problem = s.checkProof(r, s.base+"/token", "", "as")
		if problem == "use_dpop_nonce" {
			w.Header().Set("DPoP-Nonce", s.currentNonce("as"))
			bad("use_dpop_nonce")
			return
		}
		if problem != "" {
			writeJSON(w, 400, map[string]string{"error": "invalid_dpop_proof", "error_description": problem})
			return
		}
	}
	s.mu.Lock()
	revoked := s.revoked[r.PostForm.Get("client_id")]
	s.mu.Unlock()
	if revoked {
		writeJSON(w, 401, map[string]string{"error": "invalid_client"})
		return
	}
	switch grantType {
	case "client_credentials":
		if !s.clientAuthenticated(r) {
			writeJSON(w, 401, map[string]string{"error": "invalid_client"})
			return
		}
		scope = r.PostForm.Get("scope")
	case jwtBearerGrant:
		var ok bool
		if scope, ok = s.jwtBearer(w, r); !ok {
			return
		}
	case "authorization_code":
		s.mu.Lock()
		c, ok := s.codes[r.PostForm.Get("code")]
		delete(s.codes, r.PostForm.Get("code"))
		s.mu.Unlock()
		sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
		if !ok || c.client != requestClient(r) || c.redirect != r.PostForm.Get("redirect_uri") ||
			base64.RawURLEncoding.EncodeToString(sum[:]) != c.challenge {
			bad("invalid_grant")
			return
		}
		scope = c.scope
	case "refresh_token":
		time.Sleep(s.refDelay)
		rt := r.PostForm.Get("refresh_token")
		s.mu.Lock()
		sc, ok := s.refresh[rt]
		delete(s.refresh, rt) // rotation: a refresh token is good once
		s.mu.Unlock()
		scope = sc
		s.mu.Lock()
		bound := s.rtJkt[rt]
		s.mu.Unlock()
		if !ok || bound != jkt {
			bad("invalid_grant")
			return
		}
		ttl = s.refTTL
	default:
		bad("unsupported_grant_type")
		return
	}
	at, rt := token("SECRET-AT-"), token("SECRET-RT-")
	typ := "Bearer"
	if s.dpopBearer {
		jkt = ""
	}
	if jkt != "" {
		typ = "DPoP"
	}
	s.mu.Lock()
	if !s.early || s.issued > 0 {
		s.access[at] = grant{s.now().Add(time.Duration(ttl) * time.Second), scope, jkt}
	}
	s.issued++
	s.refresh[rt] = scope
	s.rtJkt[rt] = jkt
	s.lastRT = rt
	s.lastRTBy[grantType] = rt
	s.counts[typ]++
	s.mu.Unlock()
	var expiresIn any = ttl
	if s.expiresIn != "" {
		expiresIn = json.RawMessage(s.expiresIn)
	}
	writeJSON(w, 200, map[string]any{"access_token": at, "token_type": typ, "expires_in": expiresIn, "refresh_token": rt, "scope": scope})
}

// checkProof checks a request's DPoP proof as RFC 9449 section 4.3 asks
// (one proof, typ, ES256 with a public jwk, htm, htu, a fresh iat, a jti
// never seen, ath for the token it comes with) and returns its key's
// thumbprint, or what is wrong; "use_dpop_nonce" when a nonce is demanded
// (where "as" or "rs" needs one, and the proof does not carry the current
// one), the new nonce set on the response by the caller's challenge.
func (s *oauthServer) checkProof(r *http.Request, htu, tok, where string) (string, string) {
	proofs := r.Header.Values("DPoP")
	if len(proofs) != 1 {
		return "", fmt.Sprintf("%d DPoP proofs", len(proofs))
	}
	var jkt string
	claims := jwt.MapClaims{}
	parsed, err := jwt.ParseWithClaims(proofs[0], claims, func(t *jwt.Token) (any, error) {
		if t.Header["typ"] != "dpop+jwt" {
			return nil, errors.New("typ is not dpop+jwt")
		}
		jwk, _ := t.Header["jwk"].(map[string]any)
		if _, priv := jwk["d"]; priv || jwk["kty"] != "EC" || jwk["crv"] != "P-256" {
			return nil, errors.New("the jwk is not a P-256 public key")
		}
		x, _ := jwk["x"].(string)
		y, _ := jwk["y"].(string)
		sum := sha256.Sum256([]byte(`{"crv":"P-256","kty":"EC","x":"` + x + `","y":"` + y + `"}`))
		jkt = base64.RawURLEncoding.EncodeToString(sum[:])
		xb, _ := base64.RawURLEncoding.DecodeString(x)
		yb, _ := base64.RawURLEncoding.DecodeString(y)
		return ecdsa.ParseUncompressedPublicKey(elliptic.P256(), append(append([]byte{4}, xb...), yb...))
	}, jwt.WithValidMethods([]string{"ES256"}), jwt.WithIssuedAt(), jwt.WithTimeFunc(s.now))
	if err != nil || !parsed.Valid {
		return "", fmt.Sprintf("the proof does not verify: %v", err)
	}
	str := func(k string) string { v, _ := claims[k].(string); return v }
	iat, _ := claims["iat"].(float64)
	sum := sha256.Sum256([]byte(tok))
	wantAth := base64.RawURLEncoding.EncodeToString(sum[:])
	switch {
	case str("htm") != r.Method:
		return "", "htm is " + str("htm")
	case str("htu") != htu:
		return "", "htu is " + str("htu")
	case s.now().Sub(time.Unix(int64(iat), 0)).Abs() > 5*time.Minute:
		return "", "iat is not now"
	case tok == "" && claims["ath"] != nil:
		return "", "a token request's proof has an ath"
	case tok != "" && str("ath") != wantAth:
		return "", "ath is not the token's hash"
	case str("jti") == "":
		return "", "no jti"
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.jtis[str("jti")] {
		s.counts["dpop-replay"]++
		return "", "jti " + str("jti") + " was seen before"
	}
	s.jtis[str("jti")] = true
	if s.dpopNonce == where || s.dpopNonce == "both" || s.dpopNever == where {
		if s.dpopNever == where || str("nonce") != s.currentNonceLocked(where) {
			s.nonces[where]++
			s.counts["nonce-"+where]++
			return jkt, "use_dpop_nonce"
		}
	}
	s.counts["dpop-proof"]++
	return jkt, ""
}

// currentNonce is the nonce "as" or "rs" wants now: a new one after every
// demand, so each demand names one a client cannot have sent.
func (s *oauthServer) currentNonce(where string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.currentNonceLocked(where)
}

func (s *oauthServer) currentNonceLocked(where string) string {
	return fmt.Sprintf("%s-nonce-%d", where, s.nonces[where])
}

// requestClient is the client a token request names: in its Basic
// authentication (a client with a secret), or in its form.
func requestClient(r *http.Request) string {
	if id, _, ok := r.BasicAuth(); ok {
		if v, err := url.QueryUnescape(id); err == nil {
			return v
		}
	}
	return r.PostForm.Get("client_id")
}

// clientAuthenticated checks cc-client's secret (HTTP Basic) or its
// RFC 7523 assertion (issuer and subject the client, audience the issuer).
func (s *oauthServer) clientAuthenticated(r *http.Request) bool {
	if id, secret, ok := r.BasicAuth(); ok {
		return s.ccSecret != "" && id == "cc-client" && secret == s.ccSecret
	}
	if s.ccKey == nil || r.PostForm.Get("client_assertion_type") != "urn:ietf:params:oauth:client-assertion-type:jwt-bearer" {
		return false
	}
	tok, err := jwt.ParseWithClaims(r.PostForm.Get("client_assertion"), &jwt.RegisteredClaims{},
		func(*jwt.Token) (any, error) { return s.ccKey, nil },
		jwt.WithValidMethods([]string{"ES256"}), jwt.WithAudience(s.base), jwt.WithIssuer("cc-client"),
		jwt.WithSubject("cc-client"), jwt.WithExpirationRequired(), jwt.WithIssuedAt(), jwt.WithTimeFunc(s.now))
	return err == nil && tok.Valid
}

// oauth-migrate URL: the resource at URL names the second authorization
// server (ISSUER/as2) from now on, which knows none of the first one's
// access tokens.
func cmdOAuthMigrate(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: oauth-migrate URL")
	}
	s := oauthServerAt(ts, args[0])
	s.mu.Lock()
	s.issuer = s.base + "/as2"
	clear(s.access)
	s.mu.Unlock()
}

// oauth-revoke URL [-forget]: the token endpoint answers invalid_client to
// every client registered so far, as a server that dropped them does. With
// -forget the authorization endpoint does not know them either: it shows
// an error page instead of sending the browser back.
func cmdOAuthRevokeClients(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || len(args) > 2 || len(args) == 2 && args[1] != "-forget" {
		ts.Fatalf("usage: oauth-revoke URL [-forget]")
	}
	s := oauthServerAt(ts, args[0])
	s.mu.Lock()
	for id := range s.clients {
		s.revoked[id] = true
		if len(args) == 2 {
			delete(s.clients, id)
		}
	}
	clear(s.access)
	s.mu.Unlock()
}

// oauth-nonce-never URL as|rs: from now on the server at URL demands a
// new DPoP nonce on every request at its token endpoint (as) or its MCP
// endpoint (rs).
func cmdOAuthNonceNever(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 || args[1] != "as" && args[1] != "rs" {
		ts.Fatalf("usage: oauth-nonce-never URL as|rs")
	}
	s := oauthServerAt(ts, args[0])
	s.mu.Lock()
	s.dpopNever = args[1]
	s.mu.Unlock()
}

func oauthServerAt(ts *testscript.TestScript, u string) *oauthServer {
	v, ok := oauthServers.Load(u)
	if !ok {
		ts.Fatalf("no oauth-server at %s", u)
	}
	return v.(*oauthServer)
}

// oauth-wait URL GRANT N: wait up to 15s for the N-th GRANT token request.
func cmdOAuthWait(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: oauth-wait URL GRANT N")
	}
	s := oauthServerAt(ts, args[0])
	want, err := strconv.Atoi(args[2])
	ts.Check(err)
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		s.mu.Lock()
		got := s.counts[args[1]]
		s.mu.Unlock()
		if got >= want {
			return
		}
	}
	ts.Fatalf("no %d %s token requests within 15s", want, args[1])
}

// oauth-count URL GRANT N: the server at URL answered exactly N token
// requests of grant type GRANT ("register": registration requests). With
// "keyring" as GRANT, the keyring's record must instead hold the newest
// refresh token (N "-"), the newest one a grant type N issued, or be
// absent (N "none").
func cmdOAuthCount(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: oauth-count URL GRANT N")
	}
	s := oauthServerAt(ts, args[0])
	s.mu.Lock()
	got, last := s.counts[args[1]], s.lastRT
	if args[1] == "keyring" && args[2] != "-" {
		last = s.lastRTBy[args[2]]
	}
	s.mu.Unlock()
	if args[1] == "keyring" {
		c := exec.Command("secret-tool", "lookup", "endpoint", args[0])
		c.Env = scriptEnv(ts)
		out, err := c.Output()
		if args[2] == "none" {
			if err == nil || len(out) > 0 {
				ts.Fatalf("the keyring holds a record for %s", args[0])
			}
			return
		}
		ts.Check(err)
		var rec struct {
			RefreshToken string `json:"refreshToken"`
		}
		ts.Check(json.Unmarshal(out, &rec))
		if rec.RefreshToken != last {
			ts.Fatalf("the keyring does not hold the newest refresh token (%s)", args[2])
		}
		return
	}
	want, err := strconv.Atoi(args[2])
	ts.Check(err)
	if got != want {
		ts.Fatalf("%d %s token requests, want %d", got, args[1], want)
	}
	ts.Logf("%d %s token requests", got, args[1])
}

// authorize [-paste] [-attacks FILE] [-env NAME]... CODE PROG ARGS...: run PROG (mcpc
// login) and play the user: read the authorization link from its stderr,
// fetch it like a browser (the server approves and redirects to mcpc's
// loopback receiver), and require exit CODE; a second link (a login that
// registers anew) is followed too. Its output is kept in authorize.stdout
// and authorize.stderr, the last link's redirect_uri in authorize.redirect.
// -paste pastes the redirect URL on PROG's stdin instead of following it.
// -attacks first sends hostile callbacks (wrong state, foreign Host, POST,
// wrong path) and, after the real one, a replay; FILE gets one line per
// attempt with the status. -env passes the script's variable NAME (a
// client secret) to PROG, which otherwise gets only the harness's few.
func cmdAuthorize(ts *testscript.TestScript, neg bool, args []string) {
	fs := flag.NewFlagSet("authorize", flag.ContinueOnError)
	paste := fs.Bool("paste", false, "")
	attacks := fs.String("attacks", "", "")
	var pass []string
	fs.Func("env", "", func(k string) error { pass = append(pass, k+"="+ts.Getenv(k)); return nil })
	ts.Check(fs.Parse(args))
	args = fs.Args()
	if neg || len(args) < 2 {
		ts.Fatalf("usage: authorize [-paste] [-attacks FILE] [-env NAME]... CODE PROG [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	cmd := exec.Command(scriptPath(ts, args[1]), args[2:]...)
	cmd.Env = append(scriptEnv(ts), pass...)
	cmd.Dir = ts.MkAbs(".")
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	errPipe, err := cmd.StderrPipe()
	ts.Check(err)
	stdin, err := cmd.StdinPipe()
	ts.Check(err)
	ts.Check(cmd.Start())
	var report []string
	sc := bufio.NewScanner(errPipe)
	links := 0
	for sc.Scan() {
		line := sc.Text()
		stderr.WriteString(line + "\n")
		link := ""
		if strings.HasPrefix(line, "http") {
			link = line
		} else if strings.HasPrefix(line, `{"authorizationUrl"`) {
			var v struct{ AuthorizationURL string }
			json.Unmarshal([]byte(line), &v)
			link = v.AuthorizationURL
		}
		if link == "" {
			continue
		}
		links++
		if lu, err := url.Parse(link); err == nil {
			ts.Check(os.WriteFile(ts.MkAbs("authorize.redirect"), []byte(lu.Query().Get("redirect_uri")+"\n"), 0o644))
		}
		if *paste {
			loc := redirectOf(ts, link)
			fmt.Fprintln(stdin, "not a url")
			fmt.Fprintln(stdin, loc)
			continue
		}
		if *attacks != "" && links == 1 {
			report = append(report, attack(ts, link)...)
		}
		resp, err := http.Get(link)
		if err != nil {
			ts.Fatalf("following the link: %v", err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		report = append(report, fmt.Sprintf("callback %d %s", resp.StatusCode, headersOf(resp)))
		ts.Logf("callback answered %d: %s", resp.StatusCode, body)
		if *attacks != "" && links == 1 {
			report = append(report, "replay "+replay(link))
		}
	}
	stdin.Close()
	err = cmd.Wait()
	ts.Check(os.WriteFile(ts.MkAbs("authorize.stdout"), stdout.Bytes(), 0o644))
	ts.Check(os.WriteFile(ts.MkAbs("authorize.stderr"), stderr.Bytes(), 0o644))
	if *attacks != "" {
		ts.Check(os.WriteFile(ts.MkAbs(*attacks), []byte(strings.Join(report, "\n")+"\n"), 0o644))
	}
	got := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		got = ee.ExitCode()
	} else if err != nil {
		ts.Fatalf("%v", err)
	}
	if got != want {
		ts.Fatalf("%s exited %d, want %d\nstderr:\n%s", args[1], got, want, stderr.String())
	}
}

func noFollow() *http.Client {
	return &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// redirectOf asks the authorization server for the link's redirect without
// following it: the address a browser would be sent to.
func redirectOf(ts *testscript.TestScript, link string) string {
	resp, err := noFollow().Get(link)
	ts.Check(err)
	resp.Body.Close()
	loc := resp.Header.Get("Location")
	if loc == "" {
		ts.Fatalf("the authorization server did not redirect (HTTP %d)", resp.StatusCode)
	}
	return loc
}

func headersOf(resp *http.Response) string {
	return fmt.Sprintf("cache-control=%s referrer-policy=%s type=%s", resp.Header.Get("Cache-Control"),
		resp.Header.Get("Referrer-Policy"), strings.Fields(resp.Header.Get("Content-Type") + " ")[0])
}

// attack sends the hostile callbacks a page or a rebinding DNS name could
// send to the receiver while the login waits.
func attack(ts *testscript.TestScript, link string) []string {
	lu, err := url.Parse(link)
	ts.Check(err)
	cb, err := url.Parse(lu.Query().Get("redirect_uri"))
	ts.Check(err)
	state := lu.Query().Get("state")
	with := func(path string, q url.Values) string {
		u := *cb
		u.Path = path
		u.RawQuery = q.Encode()
		return u.String()
	}
	good := url.Values{"code": {"forged"}, "state": {state}}
	var out []string
	do := func(name, method, target, host string) {
		req, _ := http.NewRequest(method, target, nil)
		if host != "" {
			req.Host = host
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			out = append(out, name+" error "+err.Error())
			return
		}
		resp.Body.Close()
		out = append(out, fmt.Sprintf("%s %d %s", name, resp.StatusCode, headersOf(resp)))
	}
	do("wrong-state", "GET", with(cb.Path, url.Values{"code": {"forged"}, "state": {"not-the-state"}}), "")
	do("foreign-host", "GET", with(cb.Path, good), "attacker.example:"+cb.Port())
	do("post", "POST", with(cb.Path, good), "")
	do("wrong-path", "GET", with("/elsewhere", good), "")
	do("no-code", "GET", with(cb.Path, url.Values{"state": {state}}), "")
	return out
}

// replay sends the callback again after the flow completed: refused, or
// nobody listening any more.
func replay(link string) string {
	lu, _ := url.Parse(link)
	cb := lu.Query().Get("redirect_uri") + "?" + url.Values{"code": {"again"}, "state": {lu.Query().Get("state")}}.Encode()
	resp, err := http.Get(cb)
	if err != nil {
		return "refused"
	}
	resp.Body.Close()
	if resp.StatusCode >= 400 {
		return "refused"
	}
	return "accepted " + strconv.Itoa(resp.StatusCode)
}

// concurrent [-kill-paused FILE] N CODE PROG ARGS...: start N copies of
// PROG at once; every one must exit CODE and none may print a token. With
// -kill-paused, one of them is expected to pause and write its PID to FILE
// (mcpc-testhooks with MCPC_TEST_PAUSE_BEFORE_REFRESH=FILE): it gets
// SIGKILL there, and the other N-1 must still exit CODE.
func cmdConcurrent(ts *testscript.TestScript, neg bool, args []string) {
	fs := flag.NewFlagSet("concurrent", flag.ContinueOnError)
	killPaused := fs.String("kill-paused", "", "")
	ts.Check(fs.Parse(args))
	args = fs.Args()
	if neg || len(args) < 3 {
		ts.Fatalf("usage: concurrent [-kill-paused FILE] N CODE PROG [ARGS...]")
	}
	n, err := strconv.Atoi(args[0])
	ts.Check(err)
	want, err := strconv.Atoi(args[1])
	ts.Check(err)
	type result struct {
		pid      int
		code     int
		out, err string
	}
	results := make([]result, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(scriptPath(ts, args[2]), args[3:]...)
			cmd.Env = scriptEnv(ts)
			cmd.Dir = ts.MkAbs(".")
			var o, e bytes.Buffer
			cmd.Stdout, cmd.Stderr = &o, &e
			<-start
			err := cmd.Start()
			pid := 0
			if err == nil {
				pid = cmd.Process.Pid
				err = cmd.Wait()
			}
			code := 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				code = ee.ExitCode()
			} else if err != nil {
				code = -2
			}
			results[i] = result{pid, code, o.String(), e.String()}
		}()
	}
	close(start)
	killed := 0
	if *killPaused != "" {
		killed = killWhenPaused(ts, ts.MkAbs(*killPaused))
	}
	wg.Wait()
	failed, sawKilled := 0, false
	for i, r := range results {
		if r.pid == killed && killed != 0 {
			// ExitCode is -1 for a process ended by a signal.
			sawKilled = r.code == -1
			continue
		}
		if r.code != want || strings.Contains(r.out+r.err, "SECRET-") {
			failed++
			ts.Logf("process %d exited %d\nstdout: %s\nstderr: %s", i, r.code, r.out, r.err)
		}
	}
	if killed != 0 {
		if !sawKilled {
			ts.Fatalf("the paused process %d was not among the %d, or did not die of SIGKILL", killed, n)
		}
		ts.Logf("%d processes: 1 killed (SIGKILL) holding the lock before its token request, %d failed of the other %d", n, failed, n-1)
	} else {
		ts.Logf("%d processes, %d failed", n, failed)
	}
	if failed > 0 {
		ts.Fatalf("%d of %d processes failed", failed, n)
	}
}

// killWhenPaused waits up to 15s for a PID in file and sends it SIGKILL.
func killWhenPaused(ts *testscript.TestScript, file string) int {
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		b, err := os.ReadFile(file)
		if err != nil || !bytes.HasSuffix(b, []byte("\n")) {
			continue
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		ts.Check(err)
		ts.Check(syscall.Kill(pid, syscall.SIGKILL))
		return pid
	}
	ts.Fatalf("no process paused (no PID in %s within 15s)", file)
	return 0
}

var lockNote = regexp.MustCompile(`^pid \d+ since \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\n$`)

// hold-locks DIR: take every lock file in DIR, as a refreshing mcpc would
// (writing this process's PID, also put in $LOCK_HOLDER), and hold them
// until the script ends.
func cmdHoldLocks(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: hold-locks DIR")
	}
	files, err := filepath.Glob(filepath.Join(ts.MkAbs(args[0]), "*.lock"))
	ts.Check(err)
	if len(files) == 0 {
		ts.Fatalf("no lock files in %s", args[0])
	}
	ts.Setenv("LOCK_HOLDER", strconv.Itoa(os.Getpid()))
	for _, f := range files {
		fl := flock.New(f)
		ok, err := fl.TryLock()
		if !ok || err != nil {
			ts.Fatalf("cannot take %s: %v", f, err)
		}
		if b, _ := os.ReadFile(f); !lockNote.Match(b) {
			ts.Fatalf("lock file %s holds %q, not a PID and a time", f, b)
		}
		ts.Check(os.WriteFile(f, []byte(fmt.Sprintf("pid %d since %s\n", os.Getpid(), time.Now().UTC().Format(time.RFC3339))), 0o600))
		ts.Defer(func() { fl.Unlock() })
	}
}

// scriptPath finds prog on the script's PATH (exec.Command would search
// the test process's own).
func scriptPath(ts *testscript.TestScript, prog string) string {
	for _, dir := range filepath.SplitList(ts.Getenv("PATH")) {
		p := filepath.Join(dir, prog)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p
		}
	}
	return prog
}

// issuerPorts are the ports an oauth-server of this run has listened on.
var issuerPorts sync.Map // int → true

// issuerListener listens on a loopback port no oauth-server of this run
// has had. The scripts share one keyring, and mcpc keeps a client
// registration by its issuer (http://127.0.0.1:PORT) and a login by its
// endpoint: a port the kernel hands out again would give one script the
// registration another script's server made (its server answers
// "unknown client", and the login waits for a callback that never
// comes).
func issuerListener(ts *testscript.TestScript) net.Listener {
	for range 1000 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		ts.Check(err)
		if _, used := issuerPorts.LoadOrStore(ln.Addr().(*net.TCPAddr).Port, true); !used {
			return ln
		}
		ln.Close()
	}
	ts.Fatalf("oauth-server: no loopback port unused in this run after 1000 tries")
	return nil
}
