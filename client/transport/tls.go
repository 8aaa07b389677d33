package transport

import (
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"path/filepath"

	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/fsx"
)

// maxPEMFile bounds a CA, certificate or key file: a bundle of every public
// CA is a few hundred KiB, and the file is named by a config file.
const maxPEMFile = 1 << 20

// ServerTLS is what a server's entry says about TLS, and how messages
// name it.
type ServerTLS struct {
	CAFile         string // the server's own CA bundle (PEM)
	ClientCertFile string // a client certificate (PEM)
	ClientKeyFile  string // its private key (PEM)
	Dir            string // where relative paths start
	Name           string // the server's name
	Source         string // the file that names the files
}

// WithServerTLS gives base (a transport from BaseTransport, where
// HTTPS_PROXY, NO_PROXY and SSL_CERT_FILE work as for any Go program) the
// server's own CA file and client certificate when its entry names them.
func WithServerTLS(base http.RoundTripper, srv ServerTLS) (http.RoundTripper, error) {
	if srv.CAFile == "" && srv.ClientCertFile == "" {
		return base, nil
	}
	bt, ok := base.(*http.Transport)
	if !ok {
		return nil, fail.New(fail.Internal, "", "%s: cannot set TLS options on a %T", srv.Name, base)
	}
	abs := func(p string) string {
		if filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(srv.Dir, p)
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if srv.CAFile != "" {
		pem, err := fsx.ReadFile(abs(srv.CAFile), maxPEMFile)
		if err != nil {
			return nil, fail.Wrap(fail.Config, err, "check \"caFile\" in "+srv.Source, "%s: cannot read caFile", srv.Name)
		}
		// The server's CA is trusted in addition to the system's: a
		// corporate CA should not make the public ones unusable.
		pool, err := x509.SystemCertPool()
		if err != nil || pool == nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fail.New(fail.Config, "caFile must hold PEM certificates", "%s: no certificate in caFile %s", srv.Name, abs(srv.CAFile))
		}
		cfg.RootCAs = pool
	}
	if srv.ClientCertFile != "" {
		cert, err := loadKeyPair(abs(srv.ClientCertFile), abs(srv.ClientKeyFile))
		if err != nil {
			return nil, fail.Wrap(fail.Config, err, "clientCertFile and clientKeyFile must be a PEM certificate and its private key", "%s: cannot load the client certificate", srv.Name)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	t := bt.Clone()
	t.TLSClientConfig = cfg
	return t, nil
}

// loadKeyPair is tls.LoadX509KeyPair with the files read by fsx.ReadFile:
// bounded, and never a FIFO or a device.
func loadKeyPair(certFile, keyFile string) (tls.Certificate, error) {
	cert, err := fsx.ReadFile(certFile, maxPEMFile)
	if err != nil {
		return tls.Certificate{}, err
	}
	key, err := fsx.ReadFile(keyFile, maxPEMFile)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.X509KeyPair(cert, key)
}
