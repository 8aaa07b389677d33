package serve

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/fsx"
	"github.com/mcpc-dev/mcpc/internal/textsafe"
	"github.com/mcpc-dev/mcpc/internal/urlx"
)

// Listen is how mcpc serve --http listens.
type Listen struct {
	Addr string // --http: host:port; port 0 picks one
	// Bearer is the token clients must send (--bearer-env's value); ""
	// with NoAuth lets any local process in, "" without it makes one,
	// written to TokenFile.
	Bearer    string
	BearerEnv string // the variable Bearer came from, for the entry printed
	NoAuth    bool
	TokenFile string
	// TLSCert and TLSKey serve HTTPS; Insecure allows plain HTTP off
	// loopback (--insecure-http).
	TLSCert, TLSKey string
	Insecure        bool
}

// Check refuses what cannot be served safely, before anything starts: a
// non-loopback address without a bearer from the environment and TLS
// (or --insecure-http), no auth off loopback, half of TLS.
func (l Listen) Check() error {
	host, _, err := net.SplitHostPort(l.Addr)
	if err != nil {
		return fail.New(fail.Usage, "give --http HOST:PORT, e.g. --http 127.0.0.1:8808 (port 0 picks a free one)", "--http %q is not HOST:PORT", l.Addr)
	}
	loopback := urlx.IsLoopback(host)
	switch {
	case (l.TLSCert == "") != (l.TLSKey == ""):
		return fail.New(fail.Usage, "give both --tls-cert FILE and --tls-key FILE", "HTTPS needs a certificate and its key")
	case l.NoAuth && !loopback:
		return fail.New(fail.Usage, "serve on a loopback address (127.0.0.1, [::1], localhost), or give --bearer-env VAR", "--no-auth is for loopback only: %s is not", host)
	case !loopback && l.BearerEnv == "":
		return fail.New(fail.Usage, "give --bearer-env VAR with the token clients must send", "serving on %s, off loopback, needs a bearer token from the environment", host)
	case !loopback && l.TLSCert == "" && !l.Insecure:
		return fail.New(fail.Usage, "give --tls-cert FILE --tls-key FILE, or --insecure-http to send the token in the clear", "serving on %s, off loopback, needs TLS", host)
	}
	return nil
}

// Serve serves h until ctx ends, saying on notes where and how to reach
// it (a ready mcpServers entry, never the token itself).
func (l Listen) Serve(ctx context.Context, h *HTTP, name string, notes io.Writer) error {
	if l.Bearer == "" && !l.NoAuth {
		tok, err := newToken(l.TokenFile)
		if err != nil {
			return err
		}
		// Each serve's token is its own file (another serve's start must
		// not replace it), gone with serve.
		defer os.Remove(l.TokenFile)
		l.Bearer = tok
	}
	h.Bearer = l.Bearer
	ln, err := net.Listen("tcp", l.Addr)
	if err != nil {
		return fail.Wrap(fail.Usage, err, "choose another address or port (port 0 picks a free one)", "cannot listen on %s", l.Addr)
	}
	scheme := "http"
	if l.TLSCert != "" {
		scheme = "https"
	}
	url := scheme + "://" + ln.Addr().String() + h.Endpoints[0].Path
	l.announce(notes, name, url)
	// A holder a request opens is serve's, not the request's: it gets
	// serve's context (the invocation's redaction set with it), never a
	// request's, which ends with the request.
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second,
		BaseContext: func(net.Listener) context.Context { return context.WithoutCancel(ctx) }}
	served := make(chan error, 1)
	go func() {
		if l.TLSCert != "" {
			served <- srv.ServeTLS(ln, l.TLSCert, l.TLSKey)
			return
		}
		served <- srv.Serve(ln)
	}()
	select {
	case err = <-served:
	case <-ctx.Done():
	}
	h.Close()
	sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if srv.Shutdown(sctx) != nil {
		// A client that stopped reading holds its handler in a write
		// that Shutdown waits for: past the grace, its connection is
		// closed under it, and the write returns.
		srv.Close()
	}
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// announce says where the server is and gives an mcpServers entry that
// reaches it, the token named by its variable or file.
func (l Listen) announce(notes io.Writer, name, url string) {
	entry := map[string]any{"type": "http", "url": url}
	how := "no token needed (--no-auth)"
	switch {
	case l.NoAuth:
	case l.BearerEnv != "":
		entry["bearerTokenEnv"] = l.BearerEnv
		how = "the token is $" + l.BearerEnv
	default:
		entry["bearerTokenEnv"] = "MCPC_SERVE_TOKEN"
		how = "the token is in " + l.TokenFile + " (MCPC_SERVE_TOKEN=$(cat " + l.TokenFile + "))"
	}
	b, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{name: entry}})
	textsafe.Note(notes, "serving %s at %s; %s", name, url, how)
	textsafe.Note(notes, "an entry that reaches it: %s", b)
}

// newToken makes a bearer token and writes it to path (0600, in a
// private directory): the client reads it there, it is printed nowhere.
func newToken(path string) (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	tok := hex.EncodeToString(b)
	if err := fsx.PrivateDir(filepath.Dir(path)); err != nil {
		return "", err
	}
	os.Remove(path) // a file another process made keeps its mode otherwise
	if err := fsx.WriteFile(path, []byte(tok+"\n"), 0o600, fsx.Refuse); err != nil {
		return "", fmt.Errorf("cannot write the bearer token: %w", err)
	}
	return tok, nil
}
