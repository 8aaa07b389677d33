package transport

import (
	"cmp"
	"context"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/urlx"
)

// FetchOptions say how to GET one small JSON document mcpc reads before
// it connects anywhere (an AI Catalog, a Server Card): it comes from a
// host that may be anyone's, so its size, nesting and time are bounded
// and what it is served as is checked.
type FetchOptions struct {
	Accept   string        // the media type asked for
	MaxBytes int64         // of the body; more is refused, not cut
	MaxDepth int           // levels of arrays and objects
	Timeout  time.Duration // of the one request, within ctx's; 0: 30s
	// Base sends the request; nil: BaseTransport.
	Base http.RoundTripper
}

// Fetched is a document Fetch read.
type Fetched struct {
	Body []byte
	// Status is the answer's HTTP status: 200, or 404 when Fetch was told
	// a missing document is no failure (FetchOptional).
	Status int
}

// errNotFound is the 404 FetchOptional reports as a status.
var errNotFound = errors.New("not found")

// Fetch GETs raw, which must be https, or http on a loopback host: a
// redirect is followed only within its origin (SameOriginRedirects), a
// body over o.MaxBytes or nested past o.MaxDepth is refused, and so is
// one served as anything but JSON (application/json or a +json type):
// an HTML page in its place is a login or error page, not the document.
// Every failure names the URL (redacted).
func Fetch(ctx context.Context, raw string, o FetchOptions) (*Fetched, error) {
	f, err := fetch(ctx, raw, o)
	if errors.Is(err, errNotFound) {
		return nil, fail.New(fail.HTTPStatus, "", "%s answered HTTP 404", urlx.Redact(raw))
	}
	return f, err
}

// FetchOptional is Fetch where a 404 is an answer (Status 404, no body):
// a well-known document a host may not publish.
func FetchOptional(ctx context.Context, raw string, o FetchOptions) (*Fetched, error) {
	f, err := fetch(ctx, raw, o)
	if errors.Is(err, errNotFound) {
		return &Fetched{Status: http.StatusNotFound}, nil
	}
	return f, err
}

func fetch(ctx context.Context, raw string, o FetchOptions) (*Fetched, error) {
	shown := urlx.Redact(raw)
	u, err := CheckFetchURL(raw)
	if err != nil {
		return nil, err
	}
	limit := cmp.Or(o.Timeout, 30*time.Second)
	outer := ctx
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	req := (&http.Request{Method: http.MethodGet, URL: u, Host: u.Host, Header: http.Header{"Accept": {o.Accept}}}).WithContext(ctx)
	base := o.Base
	if base == nil {
		base = BaseTransport()
	}
	hc := &http.Client{Transport: base, CheckRedirect: SameOriginRedirects(shown, urlx.Origin(u))}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fetchFailure(outer, ctx, limit, shown, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		return nil, errNotFound
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fail.New(fail.HTTPStatus, "", "%s answered HTTP %d", shown, resp.StatusCode)
	}
	if ct := resp.Header.Get("Content-Type"); !isJSONType(ct) {
		return nil, fail.New(fail.Protocol, "a JSON document is served as application/json or a +json type; check the URL",
			"%s is served as %q, not JSON", shown, ct)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, o.MaxBytes+1))
	if err != nil {
		return nil, fetchFailure(outer, ctx, limit, shown, err)
	}
	if int64(len(body)) > o.MaxBytes {
		return nil, fail.New(fail.TooLarge, "", "%s is over %d bytes; refused", shown, o.MaxBytes)
	}
	if deeper(body, o.MaxDepth) {
		return nil, fail.New(fail.TooLarge, "", "%s nests more than %d levels deep; refused", shown, o.MaxDepth)
	}
	return &Fetched{Body: body, Status: resp.StatusCode}, nil
}

// CheckFetchURL is raw parsed, when mcpc may fetch it: https, or http on
// a loopback host (urlx.IsLoopback), where nothing crosses a network.
func CheckFetchURL(raw string) (*url.URL, error) {
	shown := urlx.Redact(raw)
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.Scheme != "https" && u.Scheme != "http" {
		return nil, fail.New(fail.Protocol, "", "%s is not an http(s) URL", shown)
	}
	if u.Scheme == "http" && !urlx.IsLoopback(u.Hostname()) {
		return nil, fail.New(fail.Protocol, "mcpc fetches plain http only from a loopback host; ask for an https URL",
			"%s is plain http on a non-loopback host; refused", shown)
	}
	return u, nil
}

// fetchFailure explains why a fetch of shown got no answer: the
// invocation's time (outer) or the request's (ctx, limit) ran out, a
// redirect was refused, or the host could not be reached.
func fetchFailure(outer, ctx context.Context, limit time.Duration, shown string, err error) error {
	switch {
	case fail.As(err) != nil:
		return fail.As(err)
	case errors.Is(outer.Err(), context.DeadlineExceeded):
		return fail.Deadline(err)
	case outer.Err() != nil:
		return outer.Err() // interrupted: the command says so
	case ctx.Err() != nil:
		return fail.New(fail.Timeout, "", "%s did not answer within %s", shown, limit)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return fail.New(fail.Connection, "", "cannot fetch %s: %v", shown, err)
}

// isJSONType says a Content-Type names JSON: application/json, or any
// type with the +json suffix (RFC 6839), as the catalog and card types are.
func isJSONType(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return false
	}
	return mt == "application/json" || strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json")
}
