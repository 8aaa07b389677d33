package urlx

import (
	"net/url"
	"testing"
)

func TestRedact(t *testing.T) {
	for in, want := range map[string]string{
		"https://h.example/mcp":                   "https://h.example/mcp",
		"https://u:p@h.example/mcp":               "https://REDACTED@h.example/mcp",
		"https://h.example/mcp?api_key=s&b=1&b=2": "https://h.example/mcp?api_key=REDACTED&b=REDACTED&b=REDACTED",
		"https://h.example/%zz?token=s":           "https://h.example/%zz?REDACTED",
	} {
		if got := Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}

// QueryRedactor hides a URL's query values in messages that quote the
// query as it is or query-escaped; a URL without a query needs none.
func TestQueryRedactor(t *testing.T) {
	if QueryRedactor("https://h.example/mcp") != nil {
		t.Error("a redactor for a URL without a query")
	}
	r := QueryRedactor("https://h.example/mcp?key=s3cret")
	msg := "GET https://h.example/mcp?key=s3cret failed; resource=https%3A%2F%2Fh.example%2Fmcp%3Fkey%3Ds3cret"
	want := "GET https://h.example/mcp?key=REDACTED failed; resource=https%3A%2F%2Fh.example%2Fmcp%3Fkey%3DREDACTED"
	if got := r(msg); got != want {
		t.Errorf("redacted\n%s\nwant\n%s", got, want)
	}
}

func TestOriginAndLoopback(t *testing.T) {
	origin := func(s string) string {
		u, err := url.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		return Origin(u)
	}
	if a, b := origin("https://H.example/a"), origin("HTTPS://h.example:443/b"); a != b || a != "https://h.example:443" {
		t.Errorf("origins %q and %q", a, b)
	}
	if a, b := origin("http://[::1]/"), origin("http://[::1]:8080/"); a == b || a != "http://[::1]:80" {
		t.Errorf("origins %q and %q", a, b)
	}
	for host, want := range map[string]bool{"localhost": true, "a.localhost": true, "127.0.0.2": true, "::1": true,
		"localhost.example": false, "10.0.0.1": false, "": false} {
		if IsLoopback(host) != want {
			t.Errorf("IsLoopback(%q) = %v", host, !want)
		}
	}
}
