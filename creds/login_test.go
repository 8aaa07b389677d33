package creds

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"golang.org/x/oauth2"

	"github.com/mcpc-dev/mcpc/internal/fail"
)

// A token endpoint's error body without an OAuth error code is not quoted:
// it may echo the code, the PKCE verifier or the client secret.
func TestLoginErrorHidesTokenBody(t *testing.T) {
	re := &oauth2.RetrieveError{Response: &http.Response{Status: "500 Internal Server Error"},
		Body: []byte("code_verifier=SECRET-VERIFIER&client_secret=SECRET-CS")}
	err := fmt.Errorf("token exchange failed: %w", re)
	e := fail.Wrap(fail.AuthFailed, err, "", "cannot log in to prod")
	got := withoutTokenBody(e.Msg, err)
	want := "cannot log in to prod: token exchange failed: the token endpoint answered HTTP 500 Internal Server Error (its body is not shown, since it may hold a secret)"
	if got != want || strings.Contains(got, "SECRET") {
		t.Errorf("message = %q, want %q", got, want)
	}
	// An OAuth error response is shown as oauth2 renders it: code and
	// description, no body.
	coded := fmt.Errorf("token exchange failed: %w", &oauth2.RetrieveError{ErrorCode: "invalid_grant", Body: []byte("SECRET")})
	msg := fail.Wrap(fail.AuthFailed, coded, "", "cannot log in to prod").Msg
	if got := withoutTokenBody(msg, coded); got != `cannot log in to prod: token exchange failed: oauth2: "invalid_grant"` {
		t.Errorf("coded: %q", got)
	}
}
