package creds

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"

	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/redact"
)

// LoginOptions configure one authorization-code login.
type LoginOptions struct {
	Store   Store
	Ref     Ref
	LockDir string // where the record's lock is: the login is stored holding it
	// Client identity, tried in this order: a pre-registered ClientID
	// (with ClientSecret for a confidential client), a Client ID Metadata
	// Document URL, then Dynamic Client Registration.
	ClientID          string
	ClientSecret      string
	ClientMetadataURL string
	Issuer            string   // for a pre-registered client: the only issuer it may be used with
	Scopes            []string // configured scopes; empty: what the server asks for
	RedirectPort      int      // 0: an ephemeral port
	// DPoP: nil binds the tokens to a new key when the authorization
	// server's metadata offers DPoP; true always, false never.
	DPoP *bool

	// ShowLink tells the user where to authorize; mcpc never opens a
	// browser itself.
	ShowLink func(link string)
	// Paste, when set, is read for the redirect URL (one per line) as an
	// alternative to the loopback callback, for remote shells.
	Paste io.Reader
	// Note reports a pasted line that was not the redirect URL.
	Note func(msg string)

	HTTPClient *http.Client // nil: a client that follows no redirects
	Now        func() time.Time
	// Redact hides secrets (a URL's query values) in messages that quote
	// what the SDK says; nil: nothing to hide.
	Redact func(string) string
}

// Login is an authorization-code flow in progress. Its Handler goes on the
// MCP transport: the server's 401 starts the SDK's flow (discovery,
// registration, PKCE, resource, iss check), which prints the link through
// ShowLink and waits for the callback.
type Login struct {
	o    LoginOptions
	recv *receiver
	h    *auth.AuthorizationCodeHandler

	mu       sync.Mutex
	resource string
	cfg      *oauth2.Config
	tok      *oauth2.Token
	iss      string
	asIssuer string // the issuer of the authorization server metadata the flow used
	regURL   string // that server's registration endpoint
	reused   *Registration
	dpop     *DPoP // this login's key; nil when DPoP is turned off
}

// StartLogin listens on the loopback receiver and prepares the handler.
func StartLogin(ctx context.Context, o LoginOptions) (*Login, error) {
	if err := interactiveFlow(ctx, &o.Now, &o.HTTPClient, o.Store); err != nil {
		return nil, err
	}
	challenged, port, err := previousLogin(ctx, o)
	if err != nil {
		return nil, err
	}
	recv, err := listenReceiver(port)
	if err != nil && port != o.RedirectPort {
		recv, err = listenReceiver(o.RedirectPort)
	}
	if err != nil {
		return nil, fail.Wrap(fail.AuthFailed, err, `free the port, or change "redirectPort"`, "cannot listen for the login callback")
	}
	l := &Login{o: o, recv: recv}
	if o.DPoP == nil || *o.DPoP {
		// A new key per login: the tokens are bound to it, and it is
		// kept with them.
		if l.dpop, err = NewDPoP(o.Now); err != nil {
			recv.close()
			return nil, fail.Wrap(fail.AuthFailed, err, "", "cannot make a DPoP key for %s", o.Ref.Server)
		}
		if o.DPoP != nil {
			l.dpop.Activate()
		}
	}
	h, err := auth.NewAuthorizationCodeHandler(l.handlerConfig(challenged))
	if err != nil {
		recv.close()
		return nil, fail.Wrap(fail.Config, err, "", "cannot set up the login for %s", o.Ref.Server)
	}
	l.h = h
	return l, nil
}

// previousLogin is one read of the stored login: the scopes a server
// challenged for are asked for again, and the registration it used names
// the port to listen on (else the configured one), so the redirect URI
// stays the one registered.
func previousLogin(ctx context.Context, o LoginOptions) (challenged []string, port int, err error) {
	port = o.RedirectPort
	prev, err := Load(ctx, o.Store, o.Ref)
	switch {
	case err == nil:
		challenged = prev.Challenged
		if r, err := LoadRegistration(ctx, o.Store, prev.Issuer); port == 0 && err == nil && len(r.RedirectURIs) > 0 {
			port = loopbackPort(r.RedirectURIs[0])
		}
	case !errors.Is(err, ErrNotFound) && !errors.Is(err, errUnreadable):
		return nil, 0, err
	}
	return challenged, port, nil
}

// handlerConfig is the SDK's configuration of l's flow.
func (l *Login) handlerConfig(challenged []string) *auth.AuthorizationCodeHandlerConfig {
	o := l.o
	// Watch the SDK's metadata requests to learn which authorization
	// server issued the tokens (a later 401 can then tell a migration to
	// another server from a revoked token) and answer its registration
	// request with the registration kept for that server. The code
	// exchange carries a DPoP proof once the metadata offered DPoP.
	hc := *o.HTTPClient
	base := hc.Transport
	if l.dpop != nil {
		base = l.dpop.Wrap(base)
	}
	hc.Transport = &loginTransport{base: base, l: l}
	cfg := &auth.AuthorizationCodeHandlerConfig{
		RedirectURL:              l.recv.redirectURL(),
		AuthorizationCodeFetcher: l.fetch,
		RequestRefreshToken:      true,
		Client:                   &hc,
		// Scopes the server challenged for earlier are asked for this
		// time (step-up): the union with what would be asked anyway.
		ScopeFilter: func(discovered []string) []string {
			s := discovered
			if len(o.Scopes) > 0 {
				s = o.Scopes
			}
			for _, c := range challenged {
				if !slices.Contains(s, c) {
					s = append(slices.Clip(s), c)
				}
			}
			return s
		},
		NewTokenSource: l.tokenSource,
	}
	if o.ClientID != "" {
		pc := &oauthex.ClientCredentials{ClientID: o.ClientID, Issuer: o.Issuer}
		if o.ClientSecret != "" {
			pc.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: o.ClientSecret}
		}
		cfg.PreregisteredClient = pc
		return cfg
	}
	if o.ClientMetadataURL != "" {
		cfg.ClientIDMetadataDocumentConfig = &auth.ClientIDMetadataDocumentConfig{URL: o.ClientMetadataURL}
	}
	cfg.DynamicClientRegistrationConfig = &auth.DynamicClientRegistrationConfig{
		Metadata: &oauthex.ClientRegistrationMetadata{
			ClientName:              "mcpc",
			RedirectURIs:            []string{l.recv.redirectURL()},
			GrantTypes:              []string{"authorization_code", "refresh_token"},
			ResponseTypes:           []string{"code"},
			TokenEndpointAuthMethod: "none",
			ApplicationType:         "native",
		},
	}
	return cfg
}

// tokenSource keeps the tokens the flow obtained (the SDK's
// NewTokenSource), once their type is the one l's DPoP setting allows.
func (l *Login) tokenSource(ctx context.Context, c *oauth2.Config, t *oauth2.Token) (oauth2.TokenSource, error) {
	redact.Add(ctx, t.AccessToken, t.RefreshToken, c.ClientSecret)
	if err := l.dpop.checkTokenType(l.o.Ref.Server, t.TokenType); err != nil {
		return nil, err
	}
	l.mu.Lock()
	l.cfg, l.tok = c, t
	l.mu.Unlock()
	return oauth2.StaticTokenSource(t), nil
}

// Handler is the auth.OAuthHandler for the login's MCP connection.
func (l *Login) Handler() auth.OAuthHandler { return Sticky(loginHandler{l}) }

// WrapHTTP implements HTTPWrapper for the login's MCP connection: once the
// tokens are DPoP-bound, its requests carry proofs.
func (h loginHandler) WrapHTTP(base http.RoundTripper) http.RoundTripper {
	if h.l.dpop == nil {
		return base
	}
	return h.l.dpop.Wrap(base)
}

type loginHandler struct{ l *Login }

func (h loginHandler) TokenSource(ctx context.Context) (oauth2.TokenSource, error) {
	return h.l.h.TokenSource(ctx)
}

// Authorize runs the SDK's flow; its failures (discovery, registration,
// issuer or state checks, the token exchange) become exit-4 errors that
// say the login failed, instead of looking like a plain 401.
func (h loginHandler) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	// The SDK closes the body; the status and headers (the challenge) are
	// what a second round needs.
	again := &http.Response{StatusCode: resp.StatusCode, Status: resp.Status, Header: resp.Header.Clone(), Body: http.NoBody, Request: resp.Request}
	if useNonceChallenge(resp) {
		// Not a reason to log in anew: the one retry with the server's
		// nonce was refused too.
		resp.Body.Close()
		return nonceAgain(h.l.o.Ref.Server)
	}
	err := h.l.h.Authorize(ctx, req, resp)
	if err == nil || ctx.Err() != nil {
		return err
	}
	if rejectedClient(err) {
		// A kept registration the server no longer accepts: forget it
		// and run the flow once more, which registers anew (and so asks
		// the user to approve once more). A fresh registration that is
		// rejected is not retried.
		if r := h.l.forgetReused(ctx); r != nil {
			if h.l.o.Note != nil {
				h.l.o.Note(fmt.Sprintf("the authorization server %s no longer accepts the client registration mcpc kept for it (%s): registering anew", r.Issuer, clientErrorCode(err)))
			}
			err = h.l.h.Authorize(ctx, req, again)
			if err == nil || ctx.Err() != nil {
				return err
			}
		}
	}
	if fail.As(err) != nil {
		return err
	}
	if clientErrorCode(err) == "use_dpop_nonce" {
		return nonceAgain("the authorization server of " + h.l.o.Ref.Server)
	}
	e := fail.Wrap(fail.AuthFailed, err, "", "cannot log in to %s", h.l.o.Ref.Server)
	e.Msg = withoutTokenBody(e.Msg, err)
	if h.l.o.Redact != nil {
		e.Msg = h.l.o.Redact(e.Msg)
	}
	return e
}

// fetch is the SDK's AuthorizationCodeFetcher: show the link, then wait for
// the loopback callback or a pasted redirect URL.
func (l *Login) fetch(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
	u, err := url.Parse(args.URL)
	if err != nil {
		return nil, err
	}
	state := u.Query().Get("state")
	l.mu.Lock()
	l.resource = u.Query().Get("resource")
	l.mu.Unlock()
	l.recv.expect(state)
	l.o.ShowLink(args.URL)
	r, err := awaitCallback(ctx, l.recv, l.o.Paste, l.o.Note, state)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			// An authorization server that no longer knows a kept
			// client shows its error in the browser and never comes
			// back: forget the registration, so that the next login
			// registers anew rather than waiting in vain again.
			if r := l.forgetReused(ctx); r != nil && l.o.Note != nil {
				l.o.Note("the client registration kept for " + r.Issuer + " is forgotten, in case the authorization server refused it: the next login registers anew")
			}
			return nil, loginTimeout(l.o.Ref.Server)
		}
		return nil, err
	}
	if r.err != nil {
		if rejectedClient(r.err) {
			return nil, r.err // Authorize says what happened to the registration
		}
		return nil, fail.Wrap(fail.AuthFailed, r.err, "", "cannot log in to %s", l.o.Ref.Server)
	}
	l.mu.Lock()
	l.iss = r.res.Iss
	l.mu.Unlock()
	return r.res, nil
}

// storeReady refuses to start a login that cannot be stored: nobody
// should approve in a browser for tokens that would be thrown away.
func storeReady(ctx context.Context, st Store) error {
	if r, ok := st.(readier); ok {
		return r.Ready(ctx)
	}
	return nil
}

// loginTimeout is the error of a login whose callback never came.
func loginTimeout(server string) error {
	return fail.New(fail.Timeout, "open the link and approve within --timeout, or raise it",
		"no authorization arrived for %s before the time ran out", server)
}

// awaitCallback waits for the callback of the flow with this state: at the
// loopback receiver, or pasted on paste when it is set. The error is the
// context's when it ends first.
func awaitCallback(ctx context.Context, recv *receiver, paste io.Reader, note func(string), state string) (callbackResult, error) {
	pasted := make(chan callbackResult, 1)
	if paste != nil {
		go readPaste(paste, note, state, pasted)
	}
	select {
	case r := <-recv.got:
		return r, nil
	case r := <-pasted:
		return r, nil
	case <-ctx.Done():
		return callbackResult{}, ctx.Err()
	}
}

// readPaste reads lines until one is this flow's redirect URL.
func readPaste(paste io.Reader, note func(string), state string, out chan<- callbackResult) {
	sc := bufio.NewScanner(paste)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		u, err := url.Parse(line)
		if err == nil && u.Query().Get("state") == state {
			if res, err := parseCallback(u.Query(), state); res != nil || err != nil {
				out <- callbackResult{res, err}
				return
			}
		}
		if note != nil {
			note("that is not the redirect URL of this login (paste the whole address the browser was sent to)")
		}
	}
	out <- callbackResult{err: errors.New("stdin ended before a redirect URL was pasted")}
}

// Finish stores what the flow obtained. It fails when the server never
// asked for authorization, since then there is nothing to store.
func (l *Login) Finish(ctx context.Context) (*Record, error) {
	l.recv.close()
	l.mu.Lock()
	cfg, tok, resource, iss := l.cfg, l.tok, l.resource, l.iss
	if l.asIssuer != "" {
		iss = l.asIssuer
	}
	l.mu.Unlock()
	if tok == nil {
		return nil, fail.New(fail.Config, "only servers that answer 401 need `mcpc login`",
			"%s did not ask for authorization: there is nothing to log in to", l.o.Ref.Server)
	}
	rec := &Record{
		Issuer:       iss,
		TokenURL:     cfg.Endpoint.TokenURL,
		ClientID:     cfg.ClientID,
		AuthStyle:    int(cfg.Endpoint.AuthStyle),
		Resource:     resource,
		Scopes:       cfg.Scopes,
		AccessToken:  tok.AccessToken,
		TokenType:    tok.TokenType,
		RefreshToken: tok.RefreshToken,
		Expiry:       tok.Expiry,
		Obtained:     l.o.Now(),
	}
	if s, ok := tok.Extra("scope").(string); ok && s != "" {
		rec.Scopes = strings.Fields(s)
	}
	if l.dpop.Active() {
		k, err := l.dpop.encodeKey()
		if err != nil {
			return nil, err
		}
		rec.DPoPKey = k
	}
	// A registered client's secret must be kept to refresh; a configured
	// one stays in its environment variable.
	if cfg.ClientSecret != l.o.ClientSecret {
		rec.ClientSecret = cfg.ClientSecret
	}
	if err := saveLocked(ctx, l.o.Store, l.o.LockDir, l.o.Ref, rec, l.o.Now); err != nil {
		return nil, err
	}
	return rec, nil
}

// Close releases the receiver when the login is abandoned.
func (l *Login) Close() { l.recv.close() }

func (l *Login) sawMetadata(issuer, registrationEndpoint string, dpopAlgs []string) {
	if l.dpop != nil && dpopOffered(dpopAlgs) {
		l.dpop.Activate()
	}
	l.mu.Lock()
	l.asIssuer, l.regURL = issuer, registrationEndpoint
	l.mu.Unlock()
}

func (l *Login) isRegistrationEndpoint(u string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.regURL != "" && u == l.regURL
}

// registrationIssuer is what the registration is kept under: the issuer
// whose metadata named the registration endpoint.
func (l *Login) registrationIssuer() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.asIssuer
}

func (l *Login) reuse(r *Registration) {
	l.mu.Lock()
	l.reused = r
	l.mu.Unlock()
}

// forgetReused deletes the kept registration this login reused, when the
// authorization server turned it down: the next login registers anew.
func (l *Login) forgetReused(ctx context.Context) *Registration {
	l.mu.Lock()
	r := l.reused
	l.reused = nil
	l.mu.Unlock()
	if r == nil {
		return nil
	}
	ForgetRegistration(context.WithoutCancel(ctx), l.o.Store, r.Issuer, r.ClientID)
	return r
}

// rejectedClient says whether err is the authorization server turning the
// client itself down, at the authorization or the token endpoint.
func rejectedClient(err error) bool {
	switch clientErrorCode(err) {
	case "invalid_client", "unauthorized_client":
		return true
	}
	return false
}

func clientErrorCode(err error) string {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		return re.ErrorCode
	}
	var ce *callbackError
	if errors.As(err, &ce) {
		return ce.code
	}
	return ""
}

// withoutTokenBody drops the body an oauth2.RetrieveError without an error
// code quotes ("Response: ..."): a failing token endpoint may echo the
// request, and with it the code, the PKCE verifier or the client secret.
func withoutTokenBody(msg string, err error) string {
	var re *oauth2.RetrieveError
	if !errors.As(err, &re) || re.ErrorCode != "" {
		return msg
	}
	status := "an error"
	if re.Response != nil {
		status = "HTTP " + re.Response.Status
	}
	return strings.Replace(msg, re.Error(), "the token endpoint answered "+status+" (its body is not shown, since it may hold a secret)", 1)
}
