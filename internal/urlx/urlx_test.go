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
