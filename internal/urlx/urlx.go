// Package urlx holds the URL rules both the config checks and the HTTP
// transport apply: how a URL is printed (redacted), which hosts are
// loopback, and what an origin is. It is a leaf so that neither has to
// import the other.
package urlx

import (
	"net"
	"net/url"
	"strings"
)

func redact(u *url.URL) string {
	c := *u
	if c.User != nil {
		c.User = url.User("REDACTED")
	}
	if c.RawQuery != "" {
		// Any query value may be a secret (api_key=…, token=…): keep the
		// names, which say what the URL is, and hide every value.
		q := c.Query()
		for k, vs := range q {
			for i := range vs {
				vs[i] = "REDACTED"
			}
			q[k] = vs
		}
		c.RawQuery = q.Encode()
	}
	return c.String()
}

// Redact is raw as it may be printed: credentials and query values
// replaced by REDACTED. Every URL that reaches the user goes through it.
func Redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		if i := strings.IndexAny(raw, "?#"); i >= 0 {
			return raw[:i] + "?REDACTED"
		}
		return raw
	}
	return redact(u)
}

// QueryRedactor hides the values of raw's query string wherever a
// message quotes it (as it is, or query-escaped), as Redact does; nil
// when raw has no query.
func QueryRedactor(raw string) func(string) string {
	u, err := url.Parse(raw)
	if err != nil || u.RawQuery == "" {
		return nil
	}
	r, _ := url.Parse(Redact(raw))
	return strings.NewReplacer(u.RawQuery, r.RawQuery, url.QueryEscape(u.RawQuery), url.QueryEscape(r.RawQuery)).Replace
}

// IsLoopback reports whether host names this machine: plain http is
// allowed there and nowhere else.
func IsLoopback(host string) bool {
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Origin is an URL's origin, with the scheme's default port made
// explicit so that https://h and https://h:443 compare equal.
func Origin(u *url.URL) string {
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	return strings.ToLower(u.Scheme) + "://" + net.JoinHostPort(host, port)
}
