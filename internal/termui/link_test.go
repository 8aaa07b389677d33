package termui

import (
	"strings"
	"testing"
)

// The link is shown whole, its "&" kept as is in JSON too.
func TestShowLink(t *testing.T) {
	const link = "https://as.example.com/authorize?a=1&b=2"
	for _, c := range []struct {
		json bool
		want string
	}{
		{false, "mcpc: open this link in a browser to authorize mcpc:\n" + link + "\n"},
		{true, `{"authorizationUrl":"` + link + `"}` + "\n"},
	} {
		var w strings.Builder
		ShowLink(&w, c.json, link)
		if w.String() != c.want {
			t.Errorf("json %v: %q, want %q", c.json, w.String(), c.want)
		}
	}
}
