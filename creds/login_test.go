package creds

import (
	"fmt"
	"io"
	"net/http"
	"slices"
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

// --paste: a line that is not this flow's redirect URL gets a note that
// does not quote it, and stdin ending ends the wait with a reason.
func TestPasteEnds(t *testing.T) {
	var notes []string
	paste := strings.NewReader("\nhttp://127.0.0.1:1/callback?state=other&code=SECRET-CODE\n")
	out := make(chan callbackResult, 1)
	readPaste(paste, func(msg string) { notes = append(notes, msg) }, "state-1", out)
	r := <-out
	if r.res != nil || r.err == nil || r.err.Error() != "stdin ended before a redirect URL was pasted" {
		t.Fatalf("got %+v", r)
	}
	if want := []string{"that is not the redirect URL of this login (paste the whole address the browser was sent to)"}; !slices.Equal(notes, want) {
		t.Errorf("notes = %q, want %q", notes, want)
	}
}

// The browser's page arrives whole even when the flow ends at once (a
// refused exchange ends the process): the receiver answers before it
// hands the callback on, and closing it lets that answer finish.
func TestReceiverAnswersBeforeTheFlowEnds(t *testing.T) {
	for range 20 {
		r, err := listenReceiver(0)
		if err != nil {
			t.Fatal(err)
		}
		r.expect("S")
		go func() { <-r.got; r.close() }()
		resp, err := http.Get(r.redirectURL() + "?code=C&state=S")
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if want := "mcpc: authorization received; you can close this window and return to the terminal\n"; err != nil || string(body) != want {
			t.Fatalf("the page: %q, %v; want %q", body, err, want)
		}
	}
}
