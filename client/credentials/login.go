package credentials

import (
	"context"

	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/creds"
	"github.com/mcpc-dev/mcpc/internal/fail"
)

// CheckLoginTarget says whether e's server is one mcpc logs in to: an
// HTTP server that authenticates with OAuth, or an enterprise one whose
// login is at its identity provider. verb ("login", "logout") names the
// command in the message. A server of client credentials, workload
// identity or an enterprise ID token from a file stores nothing: the
// hint says where its credential comes from instead.
func CheckLoginTarget(e *config.Entry, verb string) error {
	if e.Server.URL == "" {
		return fail.New(fail.Usage, "", "mcpc %s applies to HTTP servers; %q runs over stdio", verb, e.ShownName())
	}
	if _, key := e.Server.HelperCommand(); key != "" {
		return fail.New(fail.Config, "the command prints the credential when the server is reached; nothing is stored",
			"%q authenticates with its %s: there is no login to %s", e.ShownName(), key, verb)
	}
	a := e.Server.Auth
	if a == nil || a.Type == "oauth" || a.IdPLogin() {
		return nil
	}
	hint := "client credentials are fetched at connect time and never stored"
	switch a.Type {
	case "workload":
		hint = `the workload token comes from "assertionEnv", "assertionFile" or "assertionFrom" on each invocation, and nothing is stored`
	case "enterprise":
		hint = `the ID token comes from "idTokenEnv" or "idTokenFile"; remove both to log in at the identity provider with mcpc login`
	}
	return fail.New(fail.Config, hint, "%q authenticates with %s: there is no login to %s", e.ShownName(), a.Type, verb)
}

// Logout is what a logout removed.
type Logout struct {
	// WasStored: there was a stored login to delete.
	WasStored bool
	// ForgotRegistration: the client registration (Dynamic Client
	// Registration) the login used was forgotten too, so that the next
	// login registers anew.
	ForgotRegistration bool
}

// Logout deletes e's stored login and the client registration it used at
// its authorization server: a logout leaves nothing of the login behind,
// and a registration the authorization server has dropped can be got rid
// of this way. An enterprise login's record names the identity provider,
// where mcpc registered nothing. The result is nil when the login could
// not be deleted; with a result, err is the registration's failure.
func (c Credentials) Logout(ctx context.Context, e *config.Entry) (*Logout, error) {
	rec, had, err := creds.Delete(ctx, c.Store, c.LockDir, CredentialRef(e))
	if err != nil {
		return nil, err
	}
	var issuer, clientID string
	if rec != nil && rec.IDToken == "" {
		issuer, clientID = rec.Issuer, rec.ClientID
	}
	forgot, err := creds.ForgetRegistration(ctx, c.Store, issuer, clientID)
	return &Logout{WasStored: had, ForgotRegistration: forgot}, err
}
