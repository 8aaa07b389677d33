package conn

import (
	"cmp"
	"context"
	"errors"
	"net/http"
	"net/url"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/client/state"
	"github.com/mcpc-dev/mcpc/client/transport"
	"github.com/mcpc-dev/mcpc/internal/fail"
)

func (s *Conn) connectHTTP(ctx context.Context, o ConnectOptions, protocol string) error {
	if err := s.prepareHTTP(o); err != nil {
		return err
	}
	pinned := s.Entry.Server.TransportPin(o.Transport)
	switch {
	case pinned == "sse":
		return s.connectSSE(ctx, o, protocol, "pinned")
	case pinned == "" && s.era.rec != nil && s.era.rec.Transport == state.TransportSSE:
		return s.connectSSE(ctx, o, protocol, "remembered")
	}
	err := s.connectStreamable(ctx, o, protocol)
	if err == nil || pinned != "" || !sseCandidate(ctx, err) {
		return err
	}
	// The spec's backward-compatibility procedure: a POST answered 400, 404
	// or 405 may be a 2024-11-05 server, whose GET opens an event stream
	// that starts with an "endpoint" event.
	trace(o, "the POST was refused (%s): trying the HTTP+SSE transport", s.scrub(err))
	if perr := s.prepareHTTP(o); perr != nil {
		return perr
	}
	cctx, cancel := context.WithTimeoutCause(ctx, o.ConnectTimeout, errConnectTimeout)
	defer cancel()
	switch gerr := s.http.OpenSSE(ctx, cctx, s.Entry.Server.URL); {
	case gerr == nil:
	case sseVerdict(gerr):
		return s.connectError(ctx, cctx, gerr)
	default:
		trace(o, "no HTTP+SSE transport there either (%s)", s.scrub(gerr))
		return err
	}
	s.foundSSE = true
	return s.connectSSE(ctx, o, protocol, "found")
}

// sseCandidate reports whether a Streamable HTTP handshake's failure is the
// spec's sign of a 2024-11-05 server: its POST answered 400, 404 or 405
// (with no JSON-RPC error: a server that answers JSON-RPC speaks POST).
func sseCandidate(ctx context.Context, err error) bool {
	var he *transport.HTTPError
	if ctx.Err() != nil || !errors.As(err, &he) || he.RPC() != nil {
		return false
	}
	switch he.Status() {
	case http.StatusBadRequest, http.StatusNotFound, http.StatusMethodNotAllowed:
		return true
	}
	return false
}

// sseVerdict reports whether the fallback's GET failed in a way that is
// the answer to report, not the POST's: a challenge (the server wants a
// login, whatever it speaks), an endpoint refused on another origin, a
// message over a limit, the invocation's end.
func sseVerdict(err error) bool {
	var he *transport.HTTPError
	if errors.As(err, &he) {
		return he.Status() == http.StatusUnauthorized || he.Status() == http.StatusForbidden
	}
	return !errors.Is(err, transport.ErrNotSSE)
}

func (s *Conn) connectStreamable(ctx context.Context, o ConnectOptions, protocol string) error {
	t := &mcp.StreamableClientTransport{
		Endpoint:   s.Entry.Server.URL,
		HTTPClient: s.http.Client(),
		// A 2025 server may send its questions (elicitation/create) on
		// the standalone GET stream rather than on the request's own, so
		// it is opened when there is someone or something to answer.
		DisableStandaloneSSE: !o.Input.OffersElicitation(),
		OAuthHandler:         o.OAuthHandler,
	}
	return s.handshake(ctx, o, s.newClient(o), t, protocol)
}

// connectSSE speaks the 2024-11-05 HTTP+SSE transport through the SDK's
// SSEClientTransport with mcpc's HTTP client: mcpc opens the stream
// itself (transport.OpenSSE judges the announced endpoint before anything
// is posted) and the SDK's GET is answered with it.
func (s *Conn) connectSSE(ctx context.Context, o ConnectOptions, protocol, why string) error {
	s.sse = true
	trace(o, "transport: HTTP+SSE (%s)", why)
	if !s.http.SSE() {
		cctx, cancel := context.WithTimeoutCause(ctx, o.ConnectTimeout, errConnectTimeout)
		err := s.http.OpenSSE(ctx, cctx, s.Entry.Server.URL)
		if err != nil {
			if errors.Is(err, transport.ErrNotSSE) {
				err = fail.New(fail.Protocol, "check the URL, or let mcpc pick the transport (--transport auto)",
					"%s does not serve the HTTP+SSE transport: its GET was not answered with an event stream that starts with an \"endpoint\" event", s.Label)
			}
			err = s.connectError(ctx, cctx, err)
		}
		cancel()
		if err != nil {
			return err
		}
	}
	t := &mcp.SSEClientTransport{
		Endpoint:   s.Entry.Server.URL,
		HTTPClient: s.http.Client(),
		// The tap bounds each event (--max-message) and hands the SDK a
		// stub for a large one: no second, fixed bound.
		MaxEventSize: -1,
	}
	// HTTP+SSE predates server/discover: a probe would only be refused.
	return s.handshake(ctx, o, s.newClient(o), t, cmp.Or(protocol, legacyVersion))
}

// prepareHTTP sets up the connection's HTTP client: headers, credentials,
// TLS, and the wire.
func (s *Conn) prepareHTTP(o ConnectOptions) error {
	srv := s.Entry.Server
	headers, err := config.Headers(srv, s.Label, o.Getenv)
	if err != nil {
		return err
	}
	endpoint, err := url.Parse(srv.URL)
	if err != nil { // checked when the config was read
		return fail.Wrap(fail.Config, err, "", "%s: invalid URL", s.Label)
	}
	base, err := transport.WithServerTLS(transport.BaseTransport(), transport.ServerTLS{CAFile: srv.CAFile, ClientCertFile: srv.ClientCertFile,
		ClientKeyFile: srv.ClientKeyFile, Dir: s.Entry.ConfigDir(o.Cwd), Name: s.Entry.Name, Source: s.Entry.SourceName()})
	if err != nil {
		return err
	}
	if o.WrapHTTP != nil {
		base = o.WrapHTTP(base)
	}
	s.http = transport.NewHTTP(transport.HTTPOptions{Base: base, Endpoint: endpoint, Label: s.Label, Headers: headers,
		Tap: s.wire.tap, MaxMessage: s.maxMessage, OAuth: o.OAuthHandler != nil, OAuthHandler: o.OAuthHandler, OnResume: o.Resumed})
	if a := headers.Get("Authorization"); a != "" {
		s.wire.credKey = o.Memo.CredentialKey(a)
	} else if o.CredentialID != "" {
		s.wire.credKey = state.HashKey("credential", o.CredentialID)
	}
	return nil
}
