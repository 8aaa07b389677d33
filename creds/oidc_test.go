package creds

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// The ID token checks of an enterprise login (OpenID Connect Core
// 3.1.3.7): each wrong claim is refused with what is wrong.
func TestCheckIDToken(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1_800_000_000, 0)
	exp := now.Add(time.Hour)
	mint := func(c jwt.MapClaims) string {
		base := jwt.MapClaims{"iss": "https://idp.example", "aud": []string{"other", "idp-client"}, "sub": "u", "exp": exp.Unix(), "nonce": "n-1"}
		for k, v := range c {
			if v == nil {
				delete(base, k)
			} else {
				base[k] = v
			}
		}
		s, err := jwt.NewWithClaims(jwt.SigningMethodES256, base).SignedString(key)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	for _, tc := range []struct {
		name, raw, nonce, want string
	}{
		{"good", mint(nil), "n-1", ""},
		{"refresh without nonce", mint(jwt.MapClaims{"nonce": nil}), "", ""},
		{"audience string", mint(jwt.MapClaims{"aud": "idp-client"}), "n-1", ""},
		{"none", "", "n-1", `the token response has no id_token (is "openid" a scope the identity provider grants this client?)`},
		{"not a jwt", "abc.def", "n-1", "the id_token is not a JWT"},
		{"issuer", mint(jwt.MapClaims{"iss": "https://idp.example/"}), "n-1", `its issuer is "https://idp.example/", not "https://idp.example"`},
		{"audience", mint(jwt.MapClaims{"aud": "other-client"}), "n-1", `its audience "other-client" does not include "idp-client"`},
		{"no expiry", mint(jwt.MapClaims{"exp": nil}), "n-1", "it has no expiry"},
		{"expired", mint(jwt.MapClaims{"exp": now.Unix()}), "n-1", "it expired at 2027-01-15T08:00:00Z"},
		{"nonce", mint(jwt.MapClaims{"nonce": "n-2"}), "n-1", "its nonce is not the one this login sent"},
		{"nonce missing", mint(jwt.MapClaims{"nonce": nil}), "n-1", "its nonce is not the one this login sent"},
	} {
		got, err := checkIDToken(tc.raw, "https://idp.example", "idp-client", tc.nonce, now)
		switch {
		case tc.want == "" && (err != nil || !got.Equal(exp)):
			t.Errorf("%s: got %v, %v", tc.name, got, err)
		case tc.want != "" && (err == nil || err.Error() != tc.want):
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
}
