package creds

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"golang.org/x/oauth2"
)

// TestExpiresInClamped: expires_in is the server's number, used as a
// lifetime; one too large for a time.Duration must not turn into an
// expired token (each use would then fetch another), and nonsense gives
// no expiry at all.
func TestExpiresInClamped(t *testing.T) {
	year := 365 * 24 * time.Hour
	for _, c := range []struct {
		raw  string // the JSON value of expires_in
		want time.Duration
	}{
		{`3600`, time.Hour},
		{`"3600"`, time.Hour},
		{`0.5`, 500 * time.Millisecond},
		{`31536000`, year},
		{`31536001`, year},
		{`1e10`, year},
		{`"1e10"`, year},
		{`9223372037`, year},
		{`1e300`, year},
		{`"Inf"`, year},
		{`0`, 0},
		{`-5`, 0},
		{`"NaN"`, 0},
		{`"soon"`, 0},
		{`null`, 0},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"access_token":"AT","token_type":"Bearer","expires_in":`+c.raw+`}`)
		}))
		now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
		tok, err := tokenRequest(context.Background(), srv.Client(), srv.URL, "cid", "", oauth2.AuthStyleInParams, map[string]string{"grant_type": "client_credentials"}, now)
		srv.Close()
		if err != nil {
			t.Fatalf("expires_in %s: %v", c.raw, err)
		}
		var got time.Duration
		if !tok.Expiry.IsZero() {
			got = tok.Expiry.Sub(now)
		}
		if got != c.want {
			t.Errorf("expires_in %s: lifetime %v, want %v", c.raw, got, c.want)
		}
		rec := &Record{AccessToken: tok.AccessToken, Expiry: tok.Expiry, Obtained: now}
		if c.want > 0 && rec.Stale(now) {
			t.Errorf("expires_in %s: the token is stale as soon as it arrives", c.raw)
		}
	}
}
