package creds

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/redact"
	"github.com/mcpc-dev/mcpc/internal/urlx"
)

// DPoP binds tokens to one ES256 key (RFC 9449): every request it signs
// carries a fresh proof, and the nonces servers hand out are kept per
// origin for this process. A DPoP made for a login starts inactive and is
// switched on once the authorization server's metadata offers DPoP (or the
// server entry asks for it): until then its transport changes nothing.
//
// The Go SDK always sends "Authorization: Bearer <token>"; the transport
// (Wrap) rewrites that to the DPoP scheme, so the SDK's token handling
// (refresh, 401, step-up) stays as it is.
type DPoP struct {
	now func() time.Time
	on  atomic.Bool
	// k is the key, replaced when a session's holder adopts a new login
	// (Tokens.renewed): the transports made by Wrap sign with whichever
	// key the login they serve is bound to now.
	k atomic.Pointer[dpopKey]

	mu     sync.Mutex
	nonces map[string]string // origin → the newest DPoP-Nonce it sent
}

type dpopKey struct {
	key *ecdsa.PrivateKey
	jwk map[string]string // the public key, as the proof's jwk header
}

// HTTPWrapper is an OAuth handler whose tokens need a transport of their
// own on the MCP connection (DPoP proofs): conn.ConnectOptions.WrapHTTP.
type HTTPWrapper interface {
	WrapHTTP(http.RoundTripper) http.RoundTripper
}

// WrapHTTP is h's transport wrapper for conn.ConnectOptions.WrapHTTP;
// nil when h needs none.
func WrapHTTP(h auth.OAuthHandler) func(http.RoundTripper) http.RoundTripper {
	if w, ok := h.(HTTPWrapper); ok {
		return w.WrapHTTP
	}
	return nil
}

// dpopAlg is the only proof algorithm mcpc signs with: every DPoP server
// must accept ES256 in practice, and one key type keeps the record simple.
const dpopAlg = "ES256"

// NewDPoP makes a fresh key, inactive until Activate.
func NewDPoP(now func() time.Time) (*DPoP, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	return newDPoP(key, now)
}

func newDPoP(key *ecdsa.PrivateKey, now func() time.Time) (*DPoP, error) {
	k, err := keyPair(key)
	if err != nil {
		return nil, err
	}
	d := keylessDPoP(now)
	d.k.Store(k)
	return d, nil
}

// keylessDPoP is an inactive DPoP without a key yet: the transport of a
// login that is not DPoP-bound, ready for one that is (useRecord).
func keylessDPoP(now func() time.Time) *DPoP {
	if now == nil {
		now = time.Now
	}
	return &DPoP{now: now, nonces: map[string]string{}}
}

func keyPair(key *ecdsa.PrivateKey) (*dpopKey, error) {
	pub, err := key.PublicKey.Bytes() // 0x04 || X || Y
	if err != nil || len(pub) != 65 {
		return nil, errors.New("the DPoP key is not a P-256 key")
	}
	b64 := base64.RawURLEncoding.EncodeToString
	return &dpopKey{key: key, jwk: map[string]string{"kty": "EC", "crv": "P-256", "x": b64(pub[1:33]), "y": b64(pub[33:])}}, nil
}

// recordKey is the key a stored login's tokens are bound to; nil for a
// login without one.
func recordKey(rec *Record) (*dpopKey, error) {
	if rec.DPoPKey == "" {
		return nil, nil
	}
	der, err := base64.StdEncoding.DecodeString(rec.DPoPKey)
	if err != nil {
		return nil, errUnreadable
	}
	k, err := x509.ParsePKCS8PrivateKey(der)
	key, ok := k.(*ecdsa.PrivateKey)
	if err != nil || !ok {
		return nil, errUnreadable
	}
	p, err := keyPair(key)
	if err != nil {
		return nil, errUnreadable
	}
	return p, nil
}

// useRecord makes d sign with the key rec's tokens are bound to, or stop
// signing when they are bound to none. A record whose key is unreadable
// changes nothing.
func (d *DPoP) useRecord(rec *Record) error {
	k, err := recordKey(rec)
	if err != nil {
		return err
	}
	if k == nil {
		d.on.Store(false)
		return nil
	}
	d.k.Store(k)
	d.Activate()
	return nil
}

// encodeKey is the private key as the keyring record keeps it (PKCS #8,
// base64); it goes nowhere else.
func (d *DPoP) encodeKey() (string, error) {
	der, err := x509.MarshalPKCS8PrivateKey(d.k.Load().key)
	if err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(der), nil
}

// Activate switches proofs on.
func (d *DPoP) Activate() { d.on.Store(true) }

// Active says whether requests are signed.
func (d *DPoP) Active() bool { return d != nil && d.on.Load() }

// offered says whether authorization server metadata's
// dpop_signing_alg_values_supported lets mcpc sign.
func dpopOffered(algs []string) bool { return slices.Contains(algs, dpopAlg) }

// Thumbprint is the key's RFC 7638 JWK SHA-256 thumbprint (what a bound
// token's cnf.jkt names).
func (d *DPoP) Thumbprint() string {
	// The required members in lexicographic order, no whitespace.
	jwk := d.k.Load().jwk
	canon := `{"crv":"P-256","kty":"EC","x":"` + jwk["x"] + `","y":"` + jwk["y"] + `"}`
	sum := sha256.Sum256([]byte(canon))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// htu is the proof's target: the URL without query and fragment (RFC
// 9449 section 4.2), nor any userinfo.
func htu(u *url.URL) string {
	v := *u
	v.User, v.RawQuery, v.ForceQuery, v.Fragment, v.RawFragment = nil, "", false, "", ""
	return v.String()
}

// ath is base64url(SHA-256(token)), binding a proof to the token it
// accompanies.
func ath(token string) string {
	sum := sha256.Sum256([]byte(token))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// Proof signs a fresh proof for one request: a new jti every time, so no
// proof is ever sent twice. token is the access token sent with it ("" for
// a token request), nonce the server's ("" for none yet).
func (d *DPoP) Proof(method string, target *url.URL, token, nonce string) (string, error) {
	claims := jwt.MapClaims{
		"jti": rand.Text(),
		"htm": method,
		"htu": htu(target),
		"iat": d.now().Unix(),
	}
	if token != "" {
		claims["ath"] = ath(token)
	}
	if nonce != "" {
		claims["nonce"] = nonce
	}
	k := d.k.Load()
	t := jwt.NewWithClaims(jwt.SigningMethodES256, claims)
	t.Header["typ"] = "dpop+jwt"
	t.Header["jwk"] = k.jwk
	return t.SignedString(k.key)
}

func (d *DPoP) nonce(origin string) string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.nonces[origin]
}

// noteNonce keeps the newest nonce an origin sent, from any response.
func (d *DPoP) noteNonce(origin string, resp *http.Response) {
	if n := resp.Header.Get("DPoP-Nonce"); n != "" {
		d.mu.Lock()
		d.nonces[origin] = n
		d.mu.Unlock()
	}
}

// Wrap is base with proofs: a request with "Authorization: Bearer X" goes
// out as "Authorization: DPoP X" with a proof bound to X; a token request
// (a form POST without a bearer token) with a proof of its own. Anything
// else, and everything while d is inactive, passes unchanged. A nil base
// is http.DefaultTransport.
func (d *DPoP) Wrap(base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return &dpopTransport{d: d, base: base}
}

type dpopTransport struct {
	d    *DPoP
	base http.RoundTripper
}

func (t *dpopTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if !t.d.Active() {
		return t.base.RoundTrip(req)
	}
	tok, bearer := strings.CutPrefix(req.Header.Get("Authorization"), "Bearer ")
	ct, _, _ := mime.ParseMediaType(req.Header.Get("Content-Type"))
	if !bearer && (req.Method != http.MethodPost || ct != "application/x-www-form-urlencoded") {
		return t.base.RoundTrip(req)
	}
	if !bearer {
		tok = ""
	}
	origin := urlx.Origin(req.URL)
	resp, err := t.send(req, req.Body, tok, bearer, t.d.nonce(origin))
	if err != nil {
		return nil, err
	}
	nonce := resp.Header.Get("DPoP-Nonce")
	replayable := req.Body == nil || req.Body == http.NoBody || req.GetBody != nil
	if nonce == "" || !replayable || !nonceDemanded(resp, bearer) {
		return resp, nil
	}
	// One retry with the nonce, in a new proof. Should the server demand
	// one again, that answer goes back as it is: the handlers make it an
	// auth failure (see nonceAgain), never a loop.
	io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	resp.Body.Close()
	body := req.Body
	if req.GetBody != nil {
		if body, err = req.GetBody(); err != nil {
			return nil, err
		}
	}
	return t.send(req, body, tok, bearer, nonce)
}

// send sends a clone of req with body and a new proof.
func (t *dpopTransport) send(req *http.Request, body io.ReadCloser, tok string, bearer bool, nonce string) (*http.Response, error) {
	proof, err := t.d.Proof(req.Method, req.URL, tok, nonce)
	if err != nil {
		return nil, err
	}
	r := req.Clone(req.Context())
	r.Body = body
	if bearer {
		r.Header.Set("Authorization", "DPoP "+tok)
	}
	r.Header.Set("DPoP", proof)
	redact.Add(req.Context(), proof, tok)
	resp, err := t.base.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	t.d.noteNonce(urlx.Origin(req.URL), resp)
	return resp, nil
}

// nonceDemanded says whether resp asks for a proof with a server nonce:
// a resource server's 401 with a DPoP use_dpop_nonce challenge (RFC 9449
// section 9), an authorization server's 400 use_dpop_nonce (section 8).
func nonceDemanded(resp *http.Response, bearer bool) bool {
	if bearer {
		return resp.StatusCode == http.StatusUnauthorized && useNonceChallenge(resp)
	}
	if resp.StatusCode != http.StatusBadRequest {
		return false
	}
	body, err := peekBody(resp)
	if err != nil {
		resp.Body = io.NopCloser(strings.NewReader(""))
		return false
	}
	var e struct {
		Error string `json:"error"`
	}
	return json.Unmarshal(body, &e) == nil && e.Error == "use_dpop_nonce"
}

func useNonceChallenge(resp *http.Response) bool {
	cs, _ := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	for _, c := range cs {
		if c.Scheme == "dpop" && c.Params["error"] == "use_dpop_nonce" {
			return true
		}
	}
	return false
}

// nonceAgain is the failure when a server demands a nonce again after the
// one retry with the nonce it gave.
func nonceAgain(who string) error {
	return fail.New(fail.AuthFailed, "the server rejects every DPoP nonce mcpc sends it; ask its operator",
		"%s demanded a new DPoP nonce again after mcpc retried once with the one it gave (use_dpop_nonce)", who)
}

// checkTokenType refuses a token that is not DPoP-bound where DPoP is in
// use: sent with the DPoP scheme it would fail, and sent as a bearer token
// it would be exactly what DPoP is there to prevent.
func (d *DPoP) checkTokenType(server, typ string) error {
	if !d.Active() || strings.EqualFold(typ, "DPoP") {
		return nil
	}
	// The server's word is not quoted: it could be anything.
	kind := "a token that is not DPoP-bound"
	if strings.EqualFold(typ, "Bearer") {
		kind = "a Bearer token"
	}
	return fail.New(fail.AuthFailed, `to accept bearer tokens from this server, set "dpop": false on it`,
		"the authorization server issued %s for %s where DPoP was required; it is not used", kind, server)
}
