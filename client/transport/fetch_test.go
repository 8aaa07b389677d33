package transport

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpc-dev/mcpc/internal/fail"
)

// TestFetchFailures pins what a fetch that gets no document says: its own
// time ran out (within the invocation's), or nothing listens.
func TestFetchFailures(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	defer srv.Close()
	o := FetchOptions{Accept: "application/json", MaxBytes: 1 << 10, MaxDepth: 8, Timeout: 50 * time.Millisecond}
	_, err := Fetch(context.Background(), srv.URL+"/slow", o)
	if want := srv.URL + "/slow did not answer within 50ms"; err == nil || err.Error() != want || fail.CodeOf(err) != fail.Timeout {
		t.Errorf("a host that does not answer: %v (%s), want %q (timeout)", err, fail.CodeOf(err), want)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, err = Fetch(ctx, srv.URL+"/slow", FetchOptions{Accept: "application/json", MaxBytes: 1 << 10, MaxDepth: 8})
	if err == nil || err.Error() != "timed out: the invocation ran longer than --timeout" {
		t.Errorf("past the invocation's deadline: %v", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	_, err = Fetch(context.Background(), "http://"+addr+"/card", o)
	if want := "cannot fetch http://" + addr + "/card: dial tcp " + addr + ": connect: connection refused"; err == nil || !strings.HasPrefix(err.Error(), "cannot fetch http://"+addr+"/card: ") || fail.CodeOf(err) != fail.Connection {
		t.Errorf("nothing listening: %v (%s), want %q (connection)", err, fail.CodeOf(err), want)
	}
}
