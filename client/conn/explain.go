package conn

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tidwall/gjson"

	"github.com/mcpc-dev/mcpc/client/holdwire"
	"github.com/mcpc-dev/mcpc/client/transport"
	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/rawmsg"
	"github.com/mcpc-dev/mcpc/internal/urlx"
)

// errConnectTimeout is the cause of the handshake's context ending at
// --connect-timeout (rather than at the invocation's own bound).
var errConnectTimeout = errors.New("the connect timeout passed")

// opConnect is how messages name the handshake.
const opConnect = "connect to"

// connectError explains a failed handshake: a verdict already made
// stands, the invocation's own end (Ctrl-C, --timeout) is the command's to
// report, a pinned 2026-07-28 the server cannot speak is named as such;
// the rest is explain's.
func (s *Conn) connectError(ctx, cctx context.Context, err error) error {
	if f := fail.As(err); f != nil {
		return f
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if f := s.pinRefusal(); f != nil {
		return f
	}
	return s.explain(cctx, opConnect, err)
}

// explain turns the error of one operation on the connection (the handshake,
// a request) into the error the user sees. what names the operation for
// the message ("call tool \"x\" on"); ctx is the one it ran under.
func (s *Conn) explain(ctx context.Context, what string, err error) error {
	if err == nil {
		return nil
	}
	if e := s.cause(ctx, what, err); e != nil {
		return e
	}
	return &fail.Error{Code: fail.Connection, Err: err, Msg: fmt.Sprintf("cannot %s %s: %s", what, s.Label, s.scrub(err))}
}

// cause is explain's one order, nil when nothing more specific than the
// library's words is known. Each step reads evidence of this failure: the
// error chain (what the request's own HTTP answer carried, the server's
// JSON-RPC error), or how the transport itself ended (a message over a
// limit, a stdio server's death or garbage); never what an earlier
// request was answered, and never a library's message text.
//
//  1. a verdict mcpc made where it happened (*fail.Error: the OAuth
//     handler's, a refused redirect, the idle bound) stands;
//  2. a cancellation is the invocation's, which the command reports;
//  3. a message over a limit ended the connection: the rest follows from it;
//  4. the request's HTTP answer: a challenge, a JSON-RPC error, an error
//     status, or a 2xx that is not JSON-RPC;
//  5. the server's JSON-RPC error (through a session, the holder's
//     verdict on a request it could not deliver: client/hold/fail.go);
//  6. a session the server no longer knows (the SDK's reading of a 404);
//  7. a deadline, unless a stdio server died or broke the protocol first;
//  8. a stdio server that died or broke the protocol;
//  9. a server that cannot be reached.
func (s *Conn) cause(ctx context.Context, what string, err error) error {
	if f := fail.As(err); f != nil {
		return f
	}
	if errors.Is(err, context.Canceled) {
		return err
	}
	if f := s.limitFailure(); f != nil {
		return f
	}
	var he *transport.HTTPError
	if errors.As(err, &he) {
		return s.httpFailure(he)
	}
	if rpc := serverError(err); rpc != nil {
		if f := s.heldVerdict(rpc, err); f != nil {
			return f // the holder's explainer's, of a request it relayed
		}
		return s.rpcFailure(rpc, err)
	}
	if errors.Is(err, mcp.ErrSessionMissing) {
		return &fail.Error{Code: fail.HTTPStatus, Err: err, Hint: "the server ended it (or restarted): run the command again",
			Msg: fmt.Sprintf("%s no longer knows the session (HTTP 404 Not Found)", s.Label)}
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded) {
		// At a deadline the user is waiting: no wait for a dying server.
		if s.proc != nil && (s.proc.ProtocolError() != nil || s.proc.Exited()) {
			return s.procFailure()
		}
		if errors.Is(context.Cause(ctx), errConnectTimeout) {
			t := s.opts.ConnectTimeout
			return &fail.Error{Code: fail.ConnectTimeout, Err: err, Hint: fmt.Sprintf("raise --connect-timeout (now %s) if the server is slow to start", t),
				Msg: fmt.Sprintf("%s did not complete the MCP handshake within %s", s.Label, t)}
		}
		return &fail.Error{Code: fail.Timeout, Msg: fmt.Sprintf("timed out trying to %s %s", what, s.Label), Hint: "raise --timeout", Err: err}
	}
	if f := s.procFailure(); f != nil {
		return f
	}
	if s.sock != nil {
		return s.heldLost(ctx, err)
	}
	var opErr *net.OpError
	if errors.As(err, &opErr) || errors.Is(err, syscall.ECONNREFUSED) {
		why := rootCause(err)
		if opErr != nil {
			why = opErr.Err.Error()
		}
		return &fail.Error{Code: fail.Connection, Err: err, Hint: "is the server running at " + urlx.Redact(s.Entry.Server.URL) + "?",
			Msg: fmt.Sprintf("cannot %s %s: %s", what, s.Label, why)}
	}
	return nil
}

// codeRejectedByTransport is the SDK's code for "the request never got a
// JSON-RPC answer" (network error, HTTP error status): not a server verdict.
const codeRejectedByTransport = -32005

// serverError is the server's JSON-RPC error in err's chain, if any.
func serverError(err error) *jsonrpc.Error {
	var rpc *jsonrpc.Error
	if errors.As(err, &rpc) && rpc.Code != codeRejectedByTransport {
		return rpc
	}
	return nil
}

// httpFailure explains an HTTP answer the request could not use.
func (s *Conn) httpFailure(e *transport.HTTPError) *fail.Error {
	switch {
	case e.Status() == http.StatusUnauthorized:
		return s.authFailure(e)
	case e.Status() == http.StatusForbidden && (e.Challenge() || e.Credentials()):
		// A challenge asks for other credentials (insufficient_scope);
		// credentials sent and refused are insufficient (RFC 9110).
		return s.authFailure(e)
	case e.Status() == http.StatusForbidden:
		return s.forbidden(e)
	case e.RPC() != nil:
		// A 2026-07-28 server explains a refusal with a JSON-RPC error in
		// the body (-32022, -32020, -32601): that, not the status.
		return s.rpcFailure(e.RPC(), e)
	case e.Status() >= 400:
		return s.statusFailure(e)
	}
	return s.notJSONRPC(e)
}

func (s *Conn) authFailure(e *transport.HTTPError) *fail.Error {
	if _, key := s.Entry.Server.HelperCommand(); key != "" {
		// The helper ran again after the first refusal (creds.Helper):
		// this is the server's word on a fresh credential.
		f := &fail.Error{Code: fail.AuthFailed, Err: e, Hint: "run the command by hand: what it prints is sent as it is",
			Msg: fmt.Sprintf("%s refused what its %s printed, also when run again (HTTP %d)", s.Label, key, e.Status())}
		if e.Status() == http.StatusForbidden {
			f.Msg += forbiddenWhy(e)
		}
		return f
	}
	hint := "pass --bearer-env VAR, naming the environment variable that holds its token"
	if s.Entry.File != nil {
		hint = fmt.Sprintf("name the variable holding its token with \"bearerTokenEnv\" for %q in %s, or pass --bearer-env VAR", s.Entry.Name, s.Entry.File.Path)
	}
	f := &fail.Error{Code: fail.AuthRequired, Err: e, Hint: hint, Msg: fmt.Sprintf("%s requires authentication (HTTP %d)", s.Label, e.Status())}
	if e.Credentials() {
		f.Code, f.Hint = fail.AuthFailed, "check that the token is current and meant for this server"
		f.Msg = fmt.Sprintf("%s rejected the credentials that were sent (HTTP %d)", s.Label, e.Status())
	}
	switch {
	case e.Status() == http.StatusForbidden && e.Credentials():
		f.Msg = fmt.Sprintf("%s refused the credentials (HTTP 403)", s.Label)
	case e.Status() == http.StatusForbidden:
		// Nothing was sent: the challenge asks for credentials.
		f.Msg = fmt.Sprintf("%s refused the request (HTTP 403 Forbidden)", s.Label)
	}
	// A 403 body says why (a 401's is the challenge's business).
	if e.Status() == http.StatusForbidden {
		f.Msg += forbiddenWhy(e)
	}
	return f
}

// forbidden explains a 403 that asks for no credentials (no challenge)
// to a request that carried none: the server refuses the request itself
// (a DNS-rebinding guard refusing the Host, an origin or address not
// allowed), which no login or token changes. What it said is the answer.
func (s *Conn) forbidden(e *transport.HTTPError) *fail.Error {
	hint := "not a login problem: check the URL against the hosts and origins the server accepts"
	why := forbiddenWhy(e)
	if why != "" {
		hint = "not a login problem: the server refuses the request as sent, and its answer says why"
	}
	return &fail.Error{Code: fail.HTTPStatus, Err: e, Hint: hint,
		Msg: fmt.Sprintf("%s refused the request (HTTP 403 Forbidden)%s", s.Label, why)}
}

// forbiddenWhy is what a 403's body said, as ": text" for a message, ""
// when it said nothing or only repeated the status. It is the excerpt
// (one line, escapes stripped, bounded); mcpc's stderr redacts it.
func forbiddenWhy(e *transport.HTTPError) string {
	text := e.PlainText()
	if text == "" && e.RPC() != nil {
		text = e.RPC().Message
	}
	if text == "" || strings.HasPrefix(text, "403 ") {
		return ""
	}
	return ": " + text
}

func (s *Conn) statusFailure(e *transport.HTTPError) *fail.Error {
	hint := "check that " + urlx.Redact(s.Entry.Server.URL) + " is the server's MCP endpoint"
	if e.Status() >= 500 || e.Status() == http.StatusTooManyRequests {
		hint = "the server failed; try again later or look at its logs"
	}
	msg := fmt.Sprintf("%s answered HTTP %d %s", s.Label, e.Status(), http.StatusText(e.Status()))
	if e.Method() != "" {
		msg += " to " + e.Method()
	}
	// A body that starts with the status ("404 page not found") only
	// repeats it.
	if text := e.PlainText(); text != "" && !strings.HasPrefix(text, strconv.Itoa(e.Status())+" ") {
		msg += ": " + text
	}
	return &fail.Error{Code: fail.HTTPStatus, Err: e, Hint: hint, Msg: msg}
}

// notJSONRPC names a 2xx answer that is not a JSON-RPC message as what it
// is: a sign-in page or a proxy answering in the server's place, more
// often than a broken server.
func (s *Conn) notJSONRPC(e *transport.HTTPError) *fail.Error {
	answered := fmt.Sprintf("%s answered %d", s.Label, e.Status())
	var msg string
	switch {
	case e.Empty():
		msg = answered + " with an empty body, not a JSON-RPC message"
	case e.ContentType() == "text/html":
		msg = answered + " text/html, not JSON: a login page or a proxy?"
	case e.JSON():
		msg = fmt.Sprintf("%s with JSON that is not a JSON-RPC message: %s", answered, e.Excerpt())
	case e.ContentType() == "application/json":
		msg = fmt.Sprintf("%s application/json that is not valid JSON: %q", answered, e.Excerpt())
	default:
		msg = fmt.Sprintf("%s %s, not JSON: %q", answered, cmp.Or(e.ContentType(), "without a content type"), e.Excerpt())
	}
	return &fail.Error{Code: fail.Protocol, Err: e, Msg: msg,
		Hint: "check that " + urlx.Redact(s.Entry.Server.URL) + " is the server's MCP endpoint, and that no proxy or sign-in page answers in its place"}
}

// rpcFailure reports a JSON-RPC error the server answered with.
func (s *Conn) rpcFailure(rpc *jsonrpc.Error, err error) *fail.Error {
	hint := ""
	switch rpc.Code {
	case codeUnsupportedVersion:
		hint := "use --protocol auto to let mcpc pick"
		if v := supportedVersions(rpc.Data); v != "" {
			hint = "it supports " + v + "; use --protocol auto, or pin one of those"
		}
		return &fail.Error{Code: fail.Protocol, Err: err, Hint: hint,
			Msg: fmt.Sprintf("%s does not support the pinned protocol version (JSON-RPC error -32022)", s.Label)}
	case codeMissingCapability:
		hint = "the server needs a client capability mcpc does not declare for this request"
		// gjson's @ugly compacts the capabilities to one line.
		if caps := rawmsg.View(rpc.Data).Get("requiredCapabilities|@ugly"); caps.Exists() {
			hint += " (" + caps.Raw + ")"
		}
	case codeRateLimited:
		return s.rateLimited(rpc, err)
	case jsonrpc.CodeMethodNotFound:
		hint = "the server does not implement this request"
	case jsonrpc.CodeInvalidParams:
		hint = "check the name and arguments (" + s.ListHint() + ")"
	}
	return &fail.Error{Code: fail.Rejected, Err: err, Hint: hint,
		Msg: fmt.Sprintf("%s rejected the request: %s (JSON-RPC error %d)", s.Label, rpc.Message, rpc.Code)}
}

// pinRefusal explains a server that cannot speak a pinned 2026-07-28: the
// SDK tried to fall back to initialize, which the wire refused. Why is in
// what server/discover itself was answered.
func (s *Conn) pinRefusal() *fail.Error {
	w := s.wire
	w.mu.Lock()
	refused, derr, disc, answer := w.refusedInit, w.discoverErr, w.lastDiscover, w.discoverHTTP
	w.mu.Unlock()
	if !refused {
		return nil
	}
	if derr == nil && answer != nil {
		derr = answer.RPC()
	}
	why := "it did not answer server/discover"
	switch {
	case derr != nil && derr.Code == codeUnsupportedVersion:
		why = "it answered server/discover with JSON-RPC error -32022 (unsupported version)"
		if v := supportedVersions(derr.Data); v != "" {
			why += "; it supports " + v
		}
	case derr != nil:
		why = fmt.Sprintf("it answered server/discover with JSON-RPC error %d (%s)", derr.Code, derr.Message)
	case disc != nil:
		why = "it offers " + cmp.Or(strings.Join(jsonStrings(disc, "supportedVersions"), ", "), "no versions")
	case answer != nil:
		why = "it answered server/discover with " + answer.Error()
	}
	return fail.New(fail.Protocol, "use \"protocol\": \"auto\" (or --protocol auto) to let mcpc pick",
		"%s does not speak MCP 2026-07-28, which is pinned: %s", s.Label, why)
}

// supportedVersions reads data.supported of a -32022 error.
func supportedVersions(data json.RawMessage) string {
	return strings.Join(jsonStrings(data, "supported"), ", ")
}

func jsonStrings(doc json.RawMessage, path string) []string {
	var out []string
	rawmsg.View(doc).Get(path).ForEach(func(_, v gjson.Result) bool {
		out = append(out, v.String())
		return true
	})
	return out
}

// procFailure explains a stdio server that broke the protocol or exited.
func (s *Conn) procFailure() *fail.Error {
	if s.proc == nil {
		return nil
	}
	if pe := s.proc.ProtocolError(); pe != nil {
		return s.protocolFailure(pe)
	}
	// Give the exit a moment to be noticed: a crash usually shows up as a
	// closed pipe a little before Wait returns.
	transport.WaitFor(s.proc.Done(), 200*time.Millisecond)
	if !s.proc.Exited() {
		return nil
	}
	e := &fail.Error{Code: fail.ServerExited, Msg: fmt.Sprintf("%s exited unexpectedly (%s)", s.Label, s.proc.ExitStatus())}
	if lines := s.proc.StderrTail(); len(lines) > 0 {
		e.Hint = "its last words on stderr: " + strings.Join(lines[max(0, len(lines)-3):], " | ")
	} else {
		e.Hint = "run the server command by hand to see why it stops"
	}
	return e
}

// protocolFailure explains a stdio server's line that is not JSON.
func (s *Conn) protocolFailure(pe *transport.ProtocolError) *fail.Error {
	return &fail.Error{Code: fail.Protocol, Err: pe,
		Msg:  fmt.Sprintf("%s broke the protocol: %s", s.Label, strings.TrimPrefix(pe.Error(), "the server ")),
		Hint: "a stdio server must write only JSON-RPC messages to stdout; its logs belong on stderr"}
}

// quotedURL matches a URL as Go's HTTP client quotes it in an error;
// compiled on first use, not at start-up.
var quotedURL = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`"https?://[^"\s]*"`) })

// scrub is err's text with the server's URL redacted wherever it is
// quoted: Go's HTTP client quotes the whole request URL, query string
// included, and the SDK passes its error on as text.
func (s *Conn) scrub(err error) string {
	msg := err.Error()
	if u := s.Entry.Server.URL; u != "" {
		msg = strings.ReplaceAll(msg, u, urlx.Redact(u))
	}
	// Go's client quotes the URL it sent to, which may be another: the
	// message endpoint an HTTP+SSE server announced names the HTTP session in
	// its query. The SDK keeps only the text (%v), so the text is read.
	return quotedURL().ReplaceAllStringFunc(msg, func(q string) string {
		return `"` + urlx.Redact(q[1:len(q)-1]) + `"`
	})
}

func rootCause(err error) string {
	for {
		u := errors.Unwrap(err)
		if u == nil {
			return err.Error()
		}
		err = u
	}
}

// heldVerdict is the holder's verdict in rpc when the connection is to
// a session's holder, which alone may speak for mcpc (holdwire.Verdict).
func (s *Conn) heldVerdict(rpc *jsonrpc.Error, err error) *fail.Error {
	if s.sock == nil {
		return nil
	}
	return holdwire.Verdict(rpc, err)
}
