package creds

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"

	"github.com/mcpc-dev/mcpc/internal/fail"
)

// TokensOptions say where a server's stored login lives and how to reach its
// token endpoint.
type TokensOptions struct {
	Store   Store
	Ref     Ref
	LockDir string // the state directory's lock folder
	// ClientSecret is a configured confidential client's secret, read
	// from its environment variable at connect time; never stored.
	ClientSecret string
	HTTPClient   *http.Client // nil: a client that follows no redirects
	Now          func() time.Time
	// LockWait bounds the wait for another process's refresh; the
	// context's deadline bounds it too.
	LockWait time.Duration
}

// Tokens serves a stored login to the SDK's Streamable HTTP transport as an
// auth.OAuthHandler: the stored access token on every request, a refresh
// (serialized across processes) when it is stale or rejected, and never an
// interactive flow: that is `mcpc login`'s job.
type Tokens struct {
	o   TokensOptions
	ctx context.Context

	// dpop signs with the stored login's key while its tokens are
	// DPoP-bound; inactive otherwise. Always there, so that a new login
	// adopted (renewed) may bring a key or drop it.
	dpop *DPoP

	mu  sync.Mutex
	rec *Record
	// renewRead is when renewed last read the keyring (t.mu).
	renewRead time.Time

	answered answered // the token a 401 was answered with, until it works
}

var _ auth.OAuthHandler = (*Tokens)(nil)

// OpenTokens reads the stored login before anything connects, so a missing
// one fails at once with the login command as the hint. ctx bounds every
// later keyring call, lock wait and refresh.
func OpenTokens(ctx context.Context, o TokensOptions) (*Tokens, error) {
	flowDefaults(&o.Now, &o.HTTPClient)
	if o.LockWait <= 0 {
		o.LockWait = defaultLockWait
	}
	rec, err := Load(ctx, o.Store, o.Ref)
	if err != nil {
		return nil, err
	}
	d := keylessDPoP(o.Now)
	if err := d.useRecord(rec); err != nil {
		return nil, unreadable(o.Ref, err)
	}
	// Refreshes are signed with the key the tokens are bound to.
	hc := *o.HTTPClient
	hc.Transport = d.Wrap(hc.Transport)
	o.HTTPClient = &hc
	return &Tokens{o: o, ctx: ctx, rec: rec, dpop: d}, nil
}

// WrapHTTP implements HTTPWrapper: the MCP requests of a DPoP-bound login
// carry proofs made with its key, and their answers tell whether a token
// obtained after a 401 works (answered).
func (t *Tokens) WrapHTTP(base http.RoundTripper) http.RoundTripper {
	return t.answered.wrap(t.dpop.Wrap(base))
}

// flowDefaults fills the clock and HTTP client every flow's options
// leave nil: the wall clock, and a client that follows no redirects (a
// token endpoint redirecting a credential elsewhere must not be obeyed).
func flowDefaults(now *func() time.Time, hc **http.Client) {
	if *now == nil {
		*now = time.Now
	}
	if *hc == nil {
		*hc = noRedirectClient()
	}
}

// interactiveFlow readies a login a person takes part in (StartLogin,
// IdPLogin): the flow's defaults, and a store that can keep its outcome,
// checked before anyone is sent to a browser.
func interactiveFlow(ctx context.Context, now *func() time.Time, hc **http.Client, store Store) error {
	flowDefaults(now, hc)
	return storeReady(ctx, store)
}

// noRedirectClient never follows a redirect: a token endpoint that
// redirects must not receive a refresh token on another origin.
func noRedirectClient() *http.Client {
	return &http.Client{
		Timeout:       30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// TokenSource implements auth.OAuthHandler.
func (t *Tokens) TokenSource(context.Context) (oauth2.TokenSource, error) { return t, nil }

// Token implements oauth2.TokenSource: the stored token, refreshed first
// when stale.
func (t *Tokens) Token() (*oauth2.Token, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.rec.Stale(t.o.Now()) {
		if err := t.refreshLocked(t.rec.AccessToken); err != nil {
			return nil, err
		}
	}
	return &oauth2.Token{AccessToken: t.rec.AccessToken, TokenType: "Bearer", Expiry: t.rec.Expiry}, nil
}

// Authorize implements auth.OAuthHandler. A 401 is answered with a refresh
// (the server may have revoked the token early); a 401 to the refreshed
// token before the server has accepted it, or a 403, ends the invocation
// with the login command as the hint.
func (t *Tokens) Authorize(_ context.Context, req *http.Request, resp *http.Response) error {
	defer resp.Body.Close()
	if useNonceChallenge(resp) {
		return nonceAgain(t.o.Ref.Server)
	}
	challenges, _ := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	if resp.StatusCode == http.StatusForbidden {
		if param(challenges, "error") == "insufficient_scope" {
			return t.stepUp(scopeTokens(param(challenges, "scope")))
		}
		return fail.New(fail.AuthFailed, "check the account's permissions, or log in again with: "+t.o.Ref.Login,
			"%s refused the stored token (HTTP 403)", t.o.Ref.Server)
	}
	sent := bearer(req)
	if t.answered.final(sent) {
		return fail.New(fail.AuthFailed, t.o.Ref.Login, "%s rejected the stored token (HTTP %d)", t.o.Ref.Server, resp.StatusCode)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := t.checkMigration(param(challenges, "resource_metadata")); err != nil {
		return err
	}
	held := t.rec.AccessToken
	if err := t.refreshLocked(sent); err != nil {
		return err
	}
	if sent == held {
		// The token now held answers this 401. (A request in flight with
		// an older one only adopted it: its verdict is not this one's.)
		t.answered.set(t.rec.AccessToken)
	}
	return nil
}

// renewEvery bounds how often renewed reads the keyring: a verdict
// stands on every request until the user logs in again, and each request
// asks twice (TokenSource, Token). A new login is taken at most this long
// after it is stored, which no one logging in by hand notices.
const renewEvery = 250 * time.Millisecond

// renewed implements renewer: the keyring holds another login than the
// one t serves (the user logged in again after a verdict on it), which t
// now serves, signing with the DPoP key it is bound to, if any. The
// record is the same login reference, so the same credential the session
// is keyed by: what `mcpc login` stored there is the user's. The keyring
// is read at most once per renewEvery.
func (t *Tokens) renewed() bool {
	t.mu.Lock()
	now := t.o.Now()
	if now.Sub(t.renewRead) < renewEvery && !now.Before(t.renewRead) {
		t.mu.Unlock()
		return false
	}
	t.renewRead = now
	t.mu.Unlock()
	rec, err := Load(t.ctx, t.o.Store, t.o.Ref)
	if err != nil {
		return false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return !rec.sameWrite(t.rec) && t.adopt(rec) == nil
}

// adopt serves rec, which another process stored (a refresh, or a new
// login), signing with the DPoP key its tokens are bound to, if any: a
// new login brings a new key. t.mu is held.
func (t *Tokens) adopt(rec *Record) error {
	if err := t.dpop.useRecord(rec); err != nil {
		return unreadable(t.o.Ref, err)
	}
	t.rec = rec
	return nil
}

// checkMigration reads the protected resource metadata a 401 points to:
// when it no longer lists the authorization server that issued the stored
// login, refreshing there is pointless and its registration must not be
// taken elsewhere, so the user has to log in again.
func (t *Tokens) checkMigration(prmURL string) error {
	if prmURL == "" || t.rec.Issuer == "" || checkEndpoint(prmURL) != nil {
		return nil
	}
	req, err := http.NewRequestWithContext(t.ctx, http.MethodGet, prmURL, nil)
	if err != nil {
		return nil
	}
	resp, err := t.o.HTTPClient.Do(req)
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	var prm struct {
		Servers []string `json:"authorization_servers"`
	}
	if resp.StatusCode != http.StatusOK || json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&prm) != nil || len(prm.Servers) == 0 {
		return nil
	}
	for _, s := range prm.Servers {
		if strings.TrimSuffix(s, "/") == strings.TrimSuffix(t.rec.Issuer, "/") {
			return nil
		}
	}
	return fail.New(fail.AuthRequired, t.o.Ref.Login,
		"%s now uses another authorization server (%s); the stored login is from %s", t.o.Ref.Server, prm.Servers[0], t.rec.Issuer)
}

// param is a parameter of the server's Bearer or DPoP challenge: a server
// that takes DPoP-bound tokens challenges in the DPoP scheme (RFC 9449
// section 7.1), with the same parameters.
func param(cs []oauthex.Challenge, name string) string {
	for _, c := range cs {
		if (c.Scheme == "bearer" || c.Scheme == "dpop") && c.Params[name] != "" {
			return c.Params[name]
		}
	}
	return ""
}

// scopeTokens splits a challenge's scope parameter into the names RFC
// 6749 (section 3.3) allows: printable ASCII but space, '"' and '\\'.
// Anything else from the server is dropped, not stored or printed: the
// keyring record is JSON, where invalid UTF-8 would merge distinct bytes
// into one replacement character.
func scopeTokens(s string) []string {
	var out []string
	for _, f := range strings.Fields(s) {
		ok := true
		for i := 0; i < len(f); i++ {
			if c := f[i]; c < 0x21 || c > 0x7e || c == '"' || c == '\\' {
				ok = false
				break
			}
		}
		if ok && !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out
}

// stepUp remembers the scopes a server challenged for, so the next login
// asks for them along with the old ones. It never starts a login itself:
// one login per challenge, chosen by the user, cannot loop.
func (t *Tokens) stepUp(scopes []string) error {
	err := t.withLock(func() error {
		rec, err := Load(t.ctx, t.o.Store, t.o.Ref)
		if err != nil {
			return err
		}
		for _, s := range scopes {
			if !slices.Contains(rec.Challenged, s) && !slices.Contains(rec.Scopes, s) {
				rec.Challenged = append(rec.Challenged, s)
			}
		}
		return Save(t.ctx, t.o.Store, t.o.Ref, rec, t.o.Now())
	})
	if err != nil {
		return err
	}
	if len(scopes) == 0 {
		return fail.New(fail.AuthFailed, "log in again, or ask the server's operator which scopes it needs: "+t.o.Ref.Login,
			"%s needs more permissions than the stored login grants (insufficient_scope, naming no valid scope)", t.o.Ref.Server)
	}
	return fail.New(fail.AuthFailed, "log in again to grant them: "+t.o.Ref.Login,
		"%s needs more permissions than the stored login grants (insufficient_scope: %s)", t.o.Ref.Server, strings.Join(scopes, " "))
}

// refreshLocked replaces the token the caller found stale (or saw
// rejected). Under the per-record file lock it re-reads the keyring: when
// another process already stored a newer token, that one is adopted and no
// request is made. t.mu is held.
func (t *Tokens) refreshLocked(stale string) error {
	return t.withLock(func() error {
		rec, err := Load(t.ctx, t.o.Store, t.o.Ref)
		if err != nil {
			return err
		}
		if rec.AccessToken != stale && !rec.Stale(t.o.Now()) {
			return t.adopt(rec)
		}
		if rec.RefreshToken == "" {
			return fail.New(fail.AuthRequired, t.o.Ref.Login, "the stored login for %s has expired", t.o.Ref.Server)
		}
		if beforeRefresh != nil {
			beforeRefresh()
		}
		fresh, err := t.refresh(rec)
		if err != nil {
			return err
		}
		// Every writer of the record holds this lock, but one that does
		// not (an mcpc from before logins and logouts took it) may have
		// replaced or removed it while the token endpoint answered: what
		// it wrote stands, and the refreshed old login is dropped.
		cur, err := Load(t.ctx, t.o.Store, t.o.Ref)
		if err != nil {
			return err
		}
		if !cur.sameWrite(rec) {
			return t.adopt(cur)
		}
		if err := Save(t.ctx, t.o.Store, t.o.Ref, fresh, t.o.Now()); err != nil {
			return err
		}
		t.rec = fresh
		return nil
	})
}

// refresh asks the token endpoint for a new token. Done by hand rather than
// by oauth2's token source so that the request carries the RFC 8707
// resource, as the MCP authorization spec requires of token requests.
func (t *Tokens) refresh(rec *Record) (*Record, error) {
	secret := rec.ClientSecret
	if secret == "" {
		secret = t.o.ClientSecret
	}
	tok, err := tokenRequest(t.ctx, t.o.HTTPClient, rec.TokenURL, rec.ClientID, secret, oauth2.AuthStyle(rec.AuthStyle), map[string]string{
		"grant_type":    "refresh_token",
		"refresh_token": rec.RefreshToken,
		"resource":      rec.Resource,
	}, t.o.Now())
	if err != nil {
		var te *tokenError
		if errors.As(err, &te) && te.Code == "invalid_grant" {
			return nil, fail.New(fail.AuthRequired, t.o.Ref.Login,
				"the stored login for %s has expired or was revoked (the refresh was refused: invalid_grant)", t.o.Ref.Server)
		}
		if errors.As(err, &te) && te.Code == "invalid_client" {
			// The server no longer knows the client: its kept
			// registration is useless too, and the login registers anew.
			ForgetRegistration(t.ctx, t.o.Store, rec.Issuer, rec.ClientID)
			return nil, fail.New(fail.AuthRequired, t.o.Ref.Login,
				"the authorization server no longer accepts the client the stored login for %s was made with (the refresh was refused: invalid_client)", t.o.Ref.Server)
		}
		if errors.As(err, &te) && te.Code == "use_dpop_nonce" {
			return nil, nonceAgain("the authorization server of " + t.o.Ref.Server)
		}
		return nil, fail.Wrap(fail.AuthFailed, err, t.o.Ref.Login, "cannot refresh the token for %s", t.o.Ref.Server)
	}
	if err := t.dpop.checkTokenType(t.o.Ref.Server, tok.TokenType); err != nil {
		return nil, err
	}
	fresh := *rec
	fresh.AccessToken, fresh.TokenType, fresh.Expiry, fresh.Obtained = tok.AccessToken, tok.TokenType, tok.Expiry, t.o.Now()
	if tok.RefreshToken != "" { // rotation: the old one is now spent
		fresh.RefreshToken = tok.RefreshToken
	}
	if s := tok.Scope; s != "" {
		fresh.Scopes = strings.Fields(s)
	}
	return &fresh, nil
}
