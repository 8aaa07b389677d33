package creds

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/redact"
)

// Record is what a login leaves in the keyring for one server: the tokens
// and everything needed to refresh them without repeating discovery.
type Record struct {
	Version  int    `json:"version"`
	Server   string `json:"server"`
	Endpoint string `json:"endpoint"`

	Issuer       string   `json:"issuer,omitempty"`
	TokenURL     string   `json:"tokenUrl"`
	ClientID     string   `json:"clientId"`
	ClientSecret string   `json:"clientSecret,omitempty"` // from registration; a configured secret stays in its env var
	AuthStyle    int      `json:"authStyle,omitempty"`    // oauth2.AuthStyle for the token endpoint
	Resource     string   `json:"resource,omitempty"`
	Scopes       []string `json:"scopes,omitempty"`

	AccessToken  string    `json:"accessToken"`
	TokenType    string    `json:"tokenType,omitempty"`
	RefreshToken string    `json:"refreshToken,omitempty"`
	Expiry       time.Time `json:"expiry,omitzero"`
	Obtained     time.Time `json:"obtained,omitzero"` // when the access token was issued
	// DPoPKey is the private key the tokens are bound to (RFC 9449),
	// PKCS #8 in base64; empty for bearer tokens. It lives here only.
	DPoPKey string `json:"dpopKey,omitempty"`
	// IDToken is an enterprise login's ID token from the identity
	// provider (OpenID Connect); Issuer, TokenURL, ClientID and
	// RefreshToken are then the identity provider's, Expiry the ID
	// token's, and AccessToken is empty: the ID token is what each
	// invocation exchanges.
	IDToken string `json:"idToken,omitempty"`
	// Challenged holds scopes a server asked for (403 insufficient_scope)
	// that the next login adds to its request.
	Challenged []string  `json:"challenged,omitempty"`
	Saved      time.Time `json:"saved"`
}

const recordVersion = 1

// staleMargin treats a token about to expire as expired, so a request does
// not leave with a token that dies on the way.
const staleMargin = 30 * time.Second

// Stale reports whether the access token (an enterprise login's ID
// token) has expired (or is about to) at
// now. A token without an expiry is stale only once a server rejects it.
// The margin is at most a quarter of the token's lifetime, so a token that
// lives less than a minute is still used rather than refreshed at once.
func (r *Record) Stale(now time.Time) bool {
	if r.AccessToken == "" && r.IDToken == "" {
		return true
	}
	if r.Expiry.IsZero() {
		return false
	}
	margin := staleMargin
	if !r.Obtained.IsZero() {
		margin = min(margin, r.Expiry.Sub(r.Obtained)/4)
	}
	return !now.Add(margin).Before(r.Expiry)
}

// sameWrite reports whether r and o are the same write of the record: a
// login or refresh since gives new tokens (or a new key), and a new time.
func (r *Record) sameWrite(o *Record) bool {
	return r.Saved.Equal(o.Saved) && r.AccessToken == o.AccessToken && r.RefreshToken == o.RefreshToken &&
		r.IDToken == o.IDToken && r.DPoPKey == o.DPoPKey
}

// Ref names a record: where it lives and what to say about it.
type Ref struct {
	Key      string
	Server   string // the server's name as the user calls it
	Endpoint string
	// Login is the command that creates the record, for hints.
	Login string
}

// RefFor makes the Ref for a server with the given OAuth settings (any
// JSON-encodable value; it becomes part of the key).
func RefFor(server, endpoint, login string, settings any) Ref {
	return Ref{Key: KeyFor(server, endpoint, settings), Server: server, Endpoint: endpoint, Login: login}
}

// errUnreadable is in the chain of Load's error for a record it cannot
// decode: a login replaces it.
var errUnreadable = errors.New("unreadable credentials")

// Load reads a record. A missing one is fail.AuthRequired naming the login
// command.
func Load(ctx context.Context, st Store, ref Ref) (*Record, error) {
	b, err := st.Get(ctx, ref.Key)
	if errors.Is(err, ErrNotFound) {
		// ErrNotFound stays in the chain: callers tell "never logged in"
		// from "keyring unusable" by it.
		return nil, &fail.Error{Code: fail.AuthRequired, Msg: "not logged in to " + ref.Server, Hint: ref.Login, Err: ErrNotFound}
	}
	if err != nil && !errors.Is(err, errUnreadable) {
		return nil, err
	}
	var r Record
	// A keyring's parts that do not fit together (errCorruptParts) are as
	// unreadable as bytes that are not a record.
	if err != nil || json.Unmarshal(b, &r) != nil || r.Version != recordVersion {
		// Never quote the bytes: they hold tokens.
		return nil, unreadable(ref, errUnreadable)
	}
	// What a stored login sends (its tokens, a registered client's
	// secret) and the key its proofs are signed with.
	redact.Add(ctx, r.AccessToken, r.RefreshToken, r.IDToken, r.ClientSecret, r.DPoPKey)
	return &r, nil
}

// unreadable is the error for a stored record that cannot be used (its
// bytes, or the DPoP key in it): a login replaces it.
func unreadable(ref Ref, err error) error {
	return &fail.Error{Code: fail.AuthRequired, Msg: "the stored credentials for " + ref.Server + " are unreadable", Hint: ref.Login, Err: err}
}

// Save writes r under ref.
func Save(ctx context.Context, st Store, ref Ref, r *Record, now time.Time) error {
	r.Version = recordVersion
	r.Server, r.Endpoint = ref.Server, ref.Endpoint
	r.Saved = now.UTC()
	b, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("cannot encode credentials: %w", err)
	}
	attrs := map[string]string{"server": ref.Server, "endpoint": ref.Endpoint}
	return st.Put(ctx, ref.Key, "mcpc: "+ref.Server+" ("+ref.Endpoint+")", attrs, b)
}

// Delete removes the record holding its lock (see saveLocked), so that a
// refresh in flight cannot store it again afterwards. It returns what the
// record held (nil when there was none or it was unreadable) and whether
// there was one.
func Delete(ctx context.Context, st Store, lockDir string, ref Ref) (prev *Record, had bool, err error) {
	err = withRecordLock(ctx, lockDir, ref, defaultLockWait, time.Now, func() error {
		prev, _ = Load(ctx, st, ref)
		err := st.Delete(ctx, ref.Key)
		if errors.Is(err, ErrNotFound) {
			return nil
		}
		had = err == nil
		return err
	})
	return prev, had, err
}
