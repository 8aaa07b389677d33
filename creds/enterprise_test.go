package creds

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/mcpc-dev/mcpc/internal/fail"
)

func enterpriseOptions(f *fakeAS) EnterpriseOptions {
	return EnterpriseOptions{Grant: Grant{Server: "corp", Resource: "https://mcp.example/mcp", Issuer: f.URL, ClientID: "mcp-client", Scopes: []string{"read"}},
		ClientAuth: ClientAuth{Secret: "S3CRET"}, IdPIssuer: f.URL + "/idp", IdPClientID: "idp-client", IDTokenEnv: "ID",
		Getenv: env(map[string]string{"ID": "ID-TOKEN"})}
}

// The token exchange at the IdP, then the jwt-bearer grant with the ID-JAG
// and the client's Basic authentication, each with its RFC parameters.
func TestEnterpriseFlow(t *testing.T) {
	f := newFakeAS(t)
	f.answer = func(g string) (int, any) {
		if g == tokenExchange {
			return 0, map[string]any{"access_token": "ID-JAG", "issued_token_type": idJAGType, "token_type": "N_A"}
		}
		return 0, map[string]any{"access_token": "AT", "token_type": "Bearer"}
	}
	e, err := NewEnterprise(context.Background(), enterpriseOptions(f))
	if err != nil {
		t.Fatal(err)
	}
	if tok, err := e.Token(); err != nil || tok.AccessToken != "AT" {
		t.Fatalf("%v %v", tok, err)
	}
	x := f.form["/idp/token "+tokenExchange]
	for k, v := range map[string]string{"requested_token_type": idJAGType, "subject_token": "ID-TOKEN", "subject_token_type": idTokenType,
		"audience": f.URL, "resource": "https://mcp.example/mcp", "scope": "read", "client_id": "idp-client"} {
		if x[k] != v {
			t.Errorf("exchange %s = %q, want %q", k, x[k], v)
		}
	}
	b := f.form["/token "+jwtBearer]
	for k, v := range map[string]string{"assertion": "ID-JAG", "resource": "https://mcp.example/mcp", "scope": "read", "basic": "mcp-client:S3CRET"} {
		if b[k] != v {
			t.Errorf("jwt-bearer %s = %q, want %q", k, b[k], v)
		}
	}
	if _, ok := b["subject_token"]; ok {
		t.Error("the ID token went to the MCP authorization server")
	}
}

// Each refusal names its step; a refusal at the IdP sends nothing to the
// MCP authorization server's token endpoint.
func TestEnterpriseRefusals(t *testing.T) {
	for _, tc := range []struct {
		refuse, want string
	}{
		{tokenExchange, "the identity provider refused the token exchange for corp: the token endpoint answered HTTP 400: invalid_grant (bad)"},
		{jwtBearer, "the authorization server refused the ID-JAG for corp: the token endpoint answered HTTP 400: invalid_grant (bad)"},
	} {
		f := newFakeAS(t)
		f.answer = func(g string) (int, any) {
			if g == tc.refuse {
				return 400, map[string]string{"error": "invalid_grant", "error_description": "bad"}
			}
			return 0, map[string]any{"access_token": "X", "token_type": "Bearer"}
		}
		e, err := NewEnterprise(context.Background(), enterpriseOptions(f))
		if err != nil {
			t.Fatal(err)
		}
		_, err = e.Token()
		if fe := fail.As(err); fe == nil || fe.Code != fail.AuthFailed || fe.Msg != tc.want {
			t.Errorf("%#v, want %q", err, tc.want)
		}
		if tc.refuse == tokenExchange && slices.Contains(f.requests(), "POST /token "+jwtBearer) {
			t.Error("the MCP authorization server was asked after the IdP refused")
		}
	}
}

// A metadata issuer that is not exactly the configured one stops the flow
// before the ID token is sent anywhere.
func TestEnterpriseIssuerBeforeIDToken(t *testing.T) {
	f := newFakeAS(t)
	f.answer = func(string) (int, any) { return 0, map[string]any{"access_token": "X"} }
	o := enterpriseOptions(f)
	o.IdPIssuer += "/"
	e, err := NewEnterprise(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.Token()
	if fe := fail.As(err); fe == nil || !strings.HasPrefix(fe.Msg, "the identity provider's metadata names the issuer ") {
		t.Errorf("%#v", err)
	}
	for _, r := range f.requests() {
		if strings.HasPrefix(r, "POST") {
			t.Errorf("sent %s before both issuers were checked", r)
		}
	}
}

// With DPoP on, only the MCP authorization server's token request carries
// a proof and must answer a DPoP token; the IdP's exchange is another
// party's (its ID-JAG is no access token), so neither applies there.
func TestEnterpriseDPoP(t *testing.T) {
	f := newFakeAS(t)
	f.answer = func(g string) (int, any) {
		if g == tokenExchange {
			return 0, map[string]any{"access_token": "ID-JAG", "issued_token_type": idJAGType, "token_type": "N_A"}
		}
		return 0, map[string]any{"access_token": "AT", "token_type": "DPoP"}
	}
	o := enterpriseOptions(f)
	on := true
	o.DPoP = &on
	e, err := NewEnterprise(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if tok, err := e.Token(); err != nil || tok.AccessToken != "AT" {
		t.Fatalf("%v %v", tok, err)
	}
	if f.form["/idp/token "+tokenExchange]["dpop-proof"] != "" {
		t.Error("the token exchange at the IdP carried a DPoP proof")
	}
	if f.form["/token "+jwtBearer]["dpop-proof"] == "" {
		t.Error("the jwt-bearer grant at the MCP authorization server carried no DPoP proof")
	}
}
