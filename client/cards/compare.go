package cards

import (
	"net/url"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpc-dev/mcpc/internal/urlx"
)

// Live is what the server says of itself once connected, as mcpc reached
// it: its serverInfo, the revision it speaks, the URL and transport.
type Live struct {
	Info     *mcp.Implementation
	Revision string
	URL      string
	SSE      bool // it speaks the 2024-11-05 HTTP+SSE transport
}

// Difference is one value a card declares that the live server
// contradicts.
type Difference struct {
	Field  string `json:"field"`
	Card   string `json:"card"`
	Server string `json:"server"`
}

// Compare lists where live contradicts card, in the card's field order.
// The extension's "Consistency with Runtime Behavior" names what a card
// must not contradict: serverInfo's name and version, the supported
// revisions, the transport at each remote, the descriptive fields. Only
// what both sides state is compared (a card or a server may omit a
// title). A card's name is reverse DNS (com.example/weather) and
// serverInfo's is free: it matches whole or by its part after the slash.
func Compare(card *Card, live Live) []Difference {
	var d []Difference
	info := live.Info
	if info == nil {
		info = &mcp.Implementation{}
	}
	_, short, _ := strings.Cut(card.Name, "/")
	if info.Name != card.Name && info.Name != short {
		d = append(d, Difference{"name", card.Name, info.Name})
	}
	for _, f := range []struct{ field, card, server string }{
		{"version", card.Version, info.Version},
		{"title", card.Title, info.Title},
		{"description", card.Description, info.Description},
		{"websiteUrl", card.WebsiteURL, info.WebsiteURL},
	} {
		if f.card != "" && f.server != "" && f.card != f.server {
			d = append(d, Difference{f.field, f.card, f.server})
		}
	}
	return append(d, compareRemote(card, live)...)
}

// compareRemote finds the card's remote at live's URL and compares its
// transport and revisions with what the server speaks there; a card
// whose remotes (templates aside) do not list the URL contradicts it.
func compareRemote(card *Card, live Live) []Difference {
	transport := "streamable-http"
	if live.SSE {
		transport = "sse"
	}
	var urls []string
	for _, r := range card.Remotes {
		if strings.Contains(r.URL, "{") {
			return nil // a template may be filled to anything
		}
		urls = append(urls, urlx.Redact(r.URL))
		if !sameURL(r.URL, live.URL) {
			continue
		}
		var d []Difference
		if r.Type != transport {
			d = append(d, Difference{"remotes.type", r.Type, transport})
		}
		if len(r.Protocols) > 0 && live.Revision != "" && !slices.Contains(r.Protocols, live.Revision) {
			d = append(d, Difference{"remotes.supportedProtocolVersions", strings.Join(r.Protocols, ", "), live.Revision})
		}
		return d
	}
	if len(urls) == 0 {
		return nil
	}
	return []Difference{{"remotes.url", strings.Join(urls, ", "), urlx.Redact(live.URL)}}
}

// sameURL says a and b name the same endpoint: the same origin, path
// (a trailing slash aside) and query.
func sameURL(a, b string) bool {
	ua, errA := url.Parse(a)
	ub, errB := url.Parse(b)
	if errA != nil || errB != nil {
		return a == b
	}
	return urlx.Origin(ua) == urlx.Origin(ub) && ua.RawQuery == ub.RawQuery &&
		strings.TrimSuffix(ua.EscapedPath(), "/") == strings.TrimSuffix(ub.EscapedPath(), "/")
}
