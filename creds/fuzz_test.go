package creds

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/httpx"
)

// FuzzCallback throws arbitrary requests at the loopback receiver. Only a
// GET to our Host and path carrying the flow's state and a code or an
// error may end the flow, at most once, and every answer forbids caching
// and referrers.
func FuzzCallback(f *testing.F) {
	const host, state = "127.0.0.1:5555", "st-123"
	f.Add("GET", host, callbackPath, "state=st-123&code=abc&iss=https%3A%2F%2Fas.example")
	f.Add("GET", host, callbackPath, "state=st-123&error=access_denied&error_description=no")
	f.Add("GET", host, callbackPath, "state=st-12&code=abc")
	f.Add("GET", host, callbackPath, "state=st-123&state=x&code=abc")
	f.Add("GET", "localhost:5555", callbackPath, "state=st-123&code=abc")
	f.Add("POST", host, callbackPath, "state=st-123&code=abc")
	f.Add("GET", host, "/callback/", "state=st-123&code=abc")
	f.Add("GET", host, callbackPath, "state=st-123&code=%zz")
	f.Fuzz(func(t *testing.T, method, reqHost, path, rawQuery string) {
		r := &receiver{host: host, got: make(chan callbackResult, 1)}
		r.expect(state)
		req := &http.Request{Method: method, Host: reqHost, URL: &url.URL{Path: path, RawQuery: rawQuery}, Header: http.Header{}}
		q := req.URL.Query()
		valid := method == http.MethodGet && reqHost == host && path == callbackPath &&
			q.Get("state") == state && (q.Get("code") != "" || q.Get("error") != "")
		for i := range 2 {
			w := httptest.NewRecorder()
			r.ServeHTTP(w, req)
			h := w.Result().Header
			if h.Get("Cache-Control") != "no-store" || h.Get("Referrer-Policy") != "no-referrer" {
				t.Fatalf("answer %d lacks no-store/no-referrer: %v", i, h)
			}
			ended := len(r.got) == 1
			if ended != valid {
				t.Fatalf("request %d (%s %q %q ?%s): flow ended = %v, want %v", i, method, reqHost, path, rawQuery, ended, valid)
			}
			if valid && i == 1 && w.Code != http.StatusConflict {
				t.Fatalf("a replayed callback got HTTP %d, want 409", w.Code)
			}
		}
		if valid {
			res := <-r.got
			if res.err == nil && (res.res == nil || res.res.Code != q.Get("code") || res.res.State != state) {
				t.Fatalf("the flow ended with %+v, want the code %q", res.res, q.Get("code"))
			}
		}
	})
}

// FuzzForbiddenChallenge answers a stored login with a 403 carrying an
// arbitrary WWW-Authenticate header. It must end the invocation with an
// auth error, never a panic or a login, and remember only whole,
// distinct scope names of RFC 6749's alphabet (a seed of invalid UTF-8
// found that two distinct bytes were stored as one U+FFFD twice).
func FuzzForbiddenChallenge(f *testing.F) {
	f.Add(`Bearer error="insufficient_scope", scope="files:read files:write"`)
	f.Add(`Bearer realm="x", error="insufficient_scope", scope=""`)
	f.Add(`Bearer error=insufficient_scope, scope="a a  b"`)
	f.Add(`Basic realm="x", Bearer error="insufficient_scope", scope="\"q\" x"`)
	f.Add(`Bearer error="invalid_token"`)
	f.Add(`Bearer ,,,="`)
	lockDir := f.TempDir()
	f.Fuzz(func(t *testing.T, header string) {
		now := time.Now()
		ctx := context.Background()
		st := NewMemStore()
		ref := RefFor("prod", "https://mcp.example.com/mcp", "mcpc login prod", nil)
		rec := &Record{TokenURL: "https://as.example/token", ClientID: "cid", Resource: "https://mcp.example.com/mcp",
			AccessToken: "at-0", RefreshToken: "rt-0", Expiry: now.Add(time.Hour), Scopes: []string{"files:read"}}
		if err := Save(ctx, st, ref, rec, now); err != nil {
			t.Fatal(err)
		}
		o := TokensOptions{Store: st, Ref: ref, LockDir: lockDir, Now: func() time.Time { return now }}
		tk, err := OpenTokens(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		req, _ := http.NewRequest("POST", "https://mcp.example.com/mcp", nil)
		resp := &http.Response{StatusCode: http.StatusForbidden, Header: http.Header{"Www-Authenticate": {header}}, Body: io.NopCloser(strings.NewReader(""))}
		err = tk.Authorize(ctx, req, resp)
		if e := fail.As(err); e == nil || e.Code != fail.AuthFailed || !strings.HasSuffix(e.Hint, "mcpc login prod") {
			t.Fatalf("a 403 with %q gave %#v, want auth_failed naming mcpc login prod", header, err)
		}
		after, err := Load(ctx, st, o.Ref)
		if err != nil {
			t.Fatal(err)
		}
		for i, s := range after.Challenged {
			if len(scopeTokens(s)) != 1 || slices.Contains(after.Challenged[:i], s) || slices.Contains(after.Scopes, s) {
				t.Fatalf("challenged scopes %q from %q: empty, split, repeated or already granted", after.Challenged, header)
			}
		}
	})
}

// FuzzParseHelperOutput throws arbitrary output of a credential helper at
// the parser: it either fails with a message that quotes no value, or
// gives headers mcpc may send (field names, one-line values, none of its
// own), at most 64.
func FuzzParseHelperOutput(f *testing.F) {
	f.Add([]byte(`{"Authorization": "Bearer abc", "X-Api-Key": "k"}`), false)
	f.Add([]byte(`{"X-A": "a\r\nX-B: b"}`), false)
	f.Add([]byte(`{"X-A": {"b": [1, 2]}}`), false)
	f.Add([]byte(`{"x-a": "1", "X-A": "2"}`), false)
	f.Add([]byte(`{"Mcp-Session-Id": "s"}`), false)
	f.Add([]byte(" tok-123\n"), true)
	f.Add([]byte("two words\n"), true)
	f.Fuzz(func(t *testing.T, out []byte, bearer bool) {
		hs, err := ParseHelperOutput(out, bearer)
		if err != nil {
			if hs != nil {
				t.Fatalf("headers with an error: %v", hs)
			}
			return
		}
		if len(hs) > helperMaxHeaders {
			t.Fatalf("%d headers", len(hs))
		}
		for k, vs := range hs {
			if len(vs) != 1 || !httpx.ValidHeaderName(k) || !httpx.ValidHeaderValue(vs[0]) || transportHeader(k) {
				t.Fatalf("unsendable header %q: %q", k, vs)
			}
		}
		if bearer && (len(hs) != 1 || !strings.HasPrefix(hs.Get("Authorization"), "Bearer ") || strings.ContainsAny(strings.TrimPrefix(hs.Get("Authorization"), "Bearer "), " \t")) {
			t.Fatalf("bearer output gave %v", hs)
		}
	})
}
