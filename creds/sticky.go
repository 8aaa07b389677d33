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
func Sticky(h auth.OAuthHandler) auth.OAuthHandler { return &sticky{h: h} }

type sticky struct {
	h   auth.OAuthHandler
	mu  sync.Mutex
	err error
}

func (s *sticky) verdict() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
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
