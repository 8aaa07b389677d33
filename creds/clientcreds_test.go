package creds

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/mcpc-dev/mcpc/internal/fail"
)

type refuseTransport struct{ t *testing.T }

func (r refuseTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	r.t.Errorf("unexpected request to %s", req.URL)
	return nil, errors.New("refused")
}

// An issuer whose metadata could be forged on the way (plain HTTP off
// loopback) is refused before anything is fetched: the metadata decides
// where the client secret goes.
func TestClientCredentialsIssuerScheme(t *testing.T) {
	for _, issuer := range []string{"http://as.example.com", "as.example.com", "ftp://as.example.com"} {
		c, err := NewClientCredentials(context.Background(), ClientCredentialsOptions{
			Grant:      Grant{Server: "prod", Resource: "https://mcp.example.com/mcp", ClientID: "cid", Issuer: issuer, HTTPClient: &http.Client{Transport: refuseTransport{t}}},
			ClientAuth: ClientAuth{Secret: "SECRET"}})
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Token()
		e := fail.As(err)
		if e == nil || e.Code != fail.Config || e.Msg != "prod: invalid issuer \""+issuer+"\"" || e.Hint != `"issuer" must be an https URL (http only on loopback)` {
			t.Errorf("%s: %#v", issuer, err)
		}
	}
}
