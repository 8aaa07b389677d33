//go:build unix

package testscripts

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/mcpc-dev/mcpc/internal/textsafe"
)

// echoedParams are the token request parameters that carry secrets: what
// a careless server quotes back and a script checks mcpc never prints.
var echoedParams = []string{"code", "code_verifier", "refresh_token", "client_secret", "client_assertion", "assertion"}

// echoRequest refuses a token request quoting it back, secrets and all,
// as a careless server does: the body form-encoded as on the wire, the
// Authorization and DPoP headers as sent, and the client secret decoded
// from Basic authentication. It keeps the secrets it quoted
// for oauth-echoed.
func (s *oauthServer) echoRequest(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	form, _ := url.ParseQuery(string(body))
	var sent []string
	for _, k := range echoedParams {
		sent = append(sent, form[k]...)
	}
	decoded := ""
	if cred, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Basic "); ok {
		sent = append(sent, cred)
		if _, secret, ok := r.BasicAuth(); ok {
			if v, err := url.QueryUnescape(secret); err == nil {
				secret = v
			}
			sent = append(sent, secret)
			decoded = "; the client secret " + secret + " is wrong"
		}
	}
	s.mu.Lock()
	for _, v := range sent {
		if v != "" {
			s.echoed = append(s.echoed, v)
		}
	}
	redirect := s.bounce
	s.mu.Unlock()
	if redirect {
		// Sent on to a port where nobody listens: the request's form in
		// the query, so the URL in the client's error holds it.
		http.Redirect(w, r, "http://127.0.0.1:1/refused?"+string(body), http.StatusTemporaryRedirect)
		return
	}
	writeJSON(w, 400, map[string]string{"error": "invalid_request",
		"error_description": "cannot use " + string(body) + " with " + r.Header.Get("Authorization") + " and DPoP " + r.Header.Get("DPoP") + decoded})
}

// oauth-echo URL [-redirect]: from now on the token endpoint of the server
// at URL refuses every request quoting it back (as -echo-request does from
// the start): a stored login's refresh meets it. With -redirect it sends
// the request on (307) to an address that refuses connections, the form
// in the Location's query.
func cmdOAuthEcho(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || len(args) > 2 || len(args) == 2 && args[1] != "-redirect" {
		ts.Fatalf("usage: oauth-echo URL [-redirect]")
	}
	s := oauthServerAt(ts, args[0])
	s.mu.Lock()
	s.echo, s.bounce = true, len(args) == 2
	s.mu.Unlock()
}

// oauth-echoed URL PATH...: the token endpoint of the server at URL quoted
// at least one secret back, and none of them is in any file at or under
// the PATHs (what mcpc printed, saved with cp stdout/stderr, and the
// directories it writes), as it is, form-encoded, JSON-escaped, in
// base64 (a Basic credential) or made one line (as messages are printed).
func cmdOAuthEchoed(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: oauth-echoed URL PATH...")
	}
	s := oauthServerAt(ts, args[0])
	s.mu.Lock()
	secrets := slices.Clone(s.echoed)
	s.mu.Unlock()
	if len(secrets) == 0 {
		ts.Fatalf("the token endpoint quoted no secret back")
	}
	checkNoSecrets(ts, secrets, args[1:])
}

// checkNoSecrets fails unless none of secrets is in any file at or under
// paths, in any form it can be printed in: as it is, form-encoded,
// JSON-escaped, in base64 (a Basic credential) or made one line.
func checkNoSecrets(ts *testscript.TestScript, secrets, paths []string) {
	var forms []string
	for _, v := range secrets {
		j, _ := json.Marshal(v)
		forms = append(forms, v, url.QueryEscape(v), string(j[1:len(j)-1]), base64.StdEncoding.EncodeToString([]byte(v)), textsafe.OneLine(v))
	}
	files := 0
	for _, p := range paths {
		ts.Check(filepath.WalkDir(ts.MkAbs(p), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !d.Type().IsRegular() {
				return err
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			files++
			for _, f := range forms {
				if strings.Contains(string(data), f) {
					ts.Fatalf("%s holds a secret: %q", path, f)
				}
			}
			return nil
		}))
	}
	ts.Logf("%d secrets, none in %d files", len(secrets), files)
}
