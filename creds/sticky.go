package creds

import (
	"context"
	"net/http"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"golang.org/x/oauth2"

	"github.com/mcpc-dev/mcpc/internal/fail"
)

// Sticky makes h's first verdict final: once Authorize has failed with a
// *fail.Error, every later request fails with it before it is sent. The SDK
// treats a failed server/discover as a legacy server and retries with
// initialize, which would otherwise bury the verdict (and, during a login,
// start a second flow).
//
// An authentication verdict is final only while the credential it judged
// is the one h holds: a session's holder outlives it, and the user told
// to log in again does so. A handler that can tell its credential was
// replaced since (renewer: a new login stored) takes the new one, and the
// verdict is dropped. Within one connect nothing was stored anew, so the
// SDK's fallback still meets the verdict.
func Sticky(h auth.OAuthHandler) auth.OAuthHandler { return &sticky{h: h} }

// renewer is a handler whose credential may be replaced while it lives.
// renewed reports whether it was since the handler last used it, and if
// so takes the new one.
type renewer interface{ renewed() bool }

type sticky struct {
	h   auth.OAuthHandler
	mu  sync.Mutex
	err error
}

func (s *sticky) verdict() error {
	s.mu.Lock()
	err := s.err
	s.mu.Unlock()
	if e := fail.As(err); e == nil || e.Code != fail.AuthRequired && e.Code != fail.AuthFailed {
		return err
	}
	// Asked outside s.mu: it may read the keyring.
	if r, ok := s.h.(renewer); !ok || !r.renewed() {
		return err
	}
	s.mu.Lock()
	if s.err == err {
		s.err = nil
	}
	s.mu.Unlock()
	return nil
}

func (s *sticky) TokenSource(ctx context.Context) (oauth2.TokenSource, error) {
	if err := s.verdict(); err != nil {
		return nil, err
	}
	ts, err := s.h.TokenSource(ctx)
	if err != nil || ts == nil {
		return ts, err
	}
	return stickySource{s, ts}, nil
}

func (s *sticky) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	if err := s.verdict(); err != nil {
		resp.Body.Close()
		return err
	}
	err := s.h.Authorize(ctx, req, resp)
	s.keep(err)
	return err
}

// WrapHTTP passes h's transport wrapper on (see HTTPWrapper).
func (s *sticky) WrapHTTP(base http.RoundTripper) http.RoundTripper {
	if w := WrapHTTP(s.h); w != nil {
		return w(base)
	}
	return base
}

func (s *sticky) keep(err error) {
	if fail.As(err) != nil {
		s.mu.Lock()
		if s.err == nil {
			s.err = err
		}
		s.mu.Unlock()
	}
}

// stickySource keeps a failed refresh too.
type stickySource struct {
	s  *sticky
	ts oauth2.TokenSource
}

func (x stickySource) Token() (*oauth2.Token, error) {
	if err := x.s.verdict(); err != nil {
		return nil, err
	}
	t, err := x.ts.Token()
	x.s.keep(err)
	return t, err
}
