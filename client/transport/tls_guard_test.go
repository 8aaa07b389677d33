package transport

import (
	"net/http"
	"testing"

	"github.com/mcpc-dev/mcpc/internal/fail"
)

// roundTripFunc is a RoundTripper that is not an *http.Transport.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// A server's TLS files given to a transport that has no TLS settings (not
// what BaseTransport makes) are mcpc's own mistake, named as such.
func TestServerTLSNeedsHTTPTransport(t *testing.T) {
	base := roundTripFunc(func(*http.Request) (*http.Response, error) { return nil, http.ErrNotSupported })
	_, err := WithServerTLS(base, ServerTLS{CAFile: "ca.pem", Name: "srv"})
	if e := fail.As(err); e == nil || e.Code != fail.Internal || e.Msg != "srv: cannot set TLS options on a transport.roundTripFunc" {
		t.Fatalf("WithServerTLS: %v (%s)", err, fail.CodeOf(err))
	}
}
