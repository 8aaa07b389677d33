package cards

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/client/transport"
	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/urlx"
)

// The well-known catalogs, in the order they are tried: the AI Catalog the
// extension's discovery.md names since 2026-07-20, then the MCP Catalog
// the drafts before it named (the same entries), for hosts that published
// one then.
const (
	aiCatalogPath  = "/.well-known/ai-catalog.json"
	mcpCatalogPath = "/.well-known/mcp/catalog.json"
)

// Found is what a discovery found: the servers, from the catalog it read
// (empty when the argument was a card).
type Found struct {
	Catalog string   `json:"catalog,omitempty"`
	Servers []Server `json:"servers"`
}

// Server is one server a catalog lists, as its card describes it, or the
// failure that kept its card from being read (Error; then only
// Identifier and Card are set).
type Server struct {
	Identifier  string   `json:"identifier,omitempty"`
	Card        string   `json:"card"` // the card's URL, or "inline" (the entry's data)
	Name        string   `json:"name,omitempty"`
	Title       string   `json:"title,omitempty"`
	Version     string   `json:"version,omitempty"`
	Description string   `json:"description,omitempty"`
	Transport   string   `json:"transport,omitempty"`
	URL         string   `json:"url,omitempty"`
	Protocols   []string `json:"supportedProtocolVersions,omitempty"`
	Error       string   `json:"error,omitempty"`
}

type catalog struct {
	Entries *[]entry `json:"entries"`
}

type entry struct {
	Identifier string `json:"identifier"`
	Type       string `json:"type"`
	// MediaType is Type's name before the drafts renamed it (2026-07-13).
	MediaType string          `json:"mediaType"`
	URL       string          `json:"url"`
	Data      json.RawMessage `json:"data"`
}

// Discover reads what arg points to: a domain (host[:port]) or an
// origin URL is looked up at its well-known catalogs, over https; any
// other URL is fetched as it is, a catalog or a card by what it holds.
// A catalog's card entries are each read; those that could not be are
// rows with an Error, and the error returned then is the first one's
// code with a count (the rows say why). A card that cannot be read when
// arg names it is that failure.
func Discover(ctx context.Context, arg string) (*Found, error) {
	where, wellKnown, err := target(arg)
	if err != nil {
		return nil, err
	}
	var doc *transport.Fetched
	if wellKnown {
		where, doc, err = fetchWellKnown(ctx, where)
	} else {
		doc, err = transport.Fetch(ctx, where, fetchOptions(CardType+", "+CatalogType+", application/json;q=0.5"))
	}
	if err != nil {
		return nil, err
	}
	var probe map[string]json.RawMessage
	if json.Unmarshal(doc.Body, &probe); !wellKnown && probe["entries"] == nil {
		c, err := ParseCard(urlx.Redact(where), doc.Body)
		if err != nil {
			return nil, err
		}
		return &Found{Servers: []Server{row(Server{Card: urlx.Redact(where)}, c)}}, nil
	}
	return readCatalog(ctx, where, doc.Body)
}

// target is where arg points and whether that is an origin to look up.
func target(arg string) (string, bool, error) {
	if !config.IsURL(arg) {
		if arg == "" || strings.ContainsAny(arg, "/?#@ ") {
			return "", false, fail.New(fail.Usage, "give a domain (example.com) or a URL", "%q is neither a domain nor an http(s) URL", arg)
		}
		arg = "https://" + arg
	}
	u, err := transport.CheckFetchURL(arg)
	if fe := fail.As(err); fe != nil {
		// The user's own argument: a usage error, not the host's.
		fe.Code = fail.Usage
		return "", false, fe
	}
	if (u.Path == "" || u.Path == "/") && u.RawQuery == "" {
		return strings.TrimSuffix(u.String(), "/"), true, nil
	}
	return arg, false, nil
}

// fetchWellKnown reads origin's AI Catalog, or its MCP Catalog when it
// has none (HTTP 404).
func fetchWellKnown(ctx context.Context, origin string) (string, *transport.Fetched, error) {
	o := fetchOptions(CatalogType + ", application/json;q=0.5")
	for _, p := range []string{aiCatalogPath, mcpCatalogPath} {
		f, err := transport.FetchOptional(ctx, origin+p, o)
		if err != nil || f.Status != http.StatusNotFound {
			return origin + p, f, err
		}
	}
	return "", nil, fail.New(fail.HTTPStatus, "give the catalog's or the Server Card's URL if the host publishes one elsewhere",
		"%s publishes no catalog: %s and %s answered HTTP 404", urlx.Redact(origin), aiCatalogPath, mcpCatalogPath)
}

// readCatalog reads the catalog at where and each card it lists.
func readCatalog(ctx context.Context, where string, data []byte) (*Found, error) {
	var c catalog
	if err := decode(data, &c); err != nil || c.Entries == nil {
		why := "it has no entries array"
		if err != nil {
			why = err.Error()
		}
		return nil, fail.New(fail.Protocol, "", "%s is not an AI Catalog: %s", urlx.Redact(where), why)
	}
	var cardEntries []entry
	for _, e := range *c.Entries {
		if cmp.Or(e.Type, e.MediaType) == CardType {
			cardEntries = append(cardEntries, e)
		}
	}
	if len(cardEntries) > MaxEntries {
		return nil, fail.New(fail.TooLarge, "", "%s lists %d Server Cards, more than the %d mcpc reads; refused", urlx.Redact(where), len(cardEntries), MaxEntries)
	}
	base, _ := url.Parse(where)
	found := &Found{Catalog: urlx.Redact(where), Servers: []Server{}}
	var first error
	failed := 0
	for _, e := range cardEntries {
		s, err := readEntry(ctx, base, e)
		if err != nil {
			failed++
			first = cmp.Or(first, err)
			s.Error = err.Error()
		}
		found.Servers = append(found.Servers, s)
	}
	if first == nil {
		return found, nil
	}
	fe := fail.As(first)
	if fe == nil || fe.Code == fail.Timeout || fe.Code == fail.Interrupted {
		return found, first // the invocation's end, not the catalog's
	}
	return found, fail.Wrap(fe.Code, fe, fe.Hint,
		"%d of the %d Server Cards %s lists could not be read", failed, len(cardEntries), urlx.Redact(where))
}

// readEntry reads one catalog entry's card: its data, or what its url
// (relative to the catalog's) points to.
func readEntry(ctx context.Context, base *url.URL, e entry) (Server, error) {
	s := Server{Identifier: e.Identifier, Card: "inline"}
	hasData := len(e.Data) > 0 && string(e.Data) != "null"
	if hasData == (e.URL != "") {
		return s, fail.New(fail.Protocol, "", "the catalog entry %q has %s of url and data", e.Identifier, map[bool]string{true: "both", false: "neither"}[hasData])
	}
	data := []byte(e.Data)
	if e.URL != "" {
		u, err := base.Parse(e.URL)
		if err != nil {
			return s, fail.New(fail.Protocol, "", "the catalog entry %q has a url that is not a URL", e.Identifier)
		}
		s.Card = urlx.Redact(u.String())
		f, err := transport.Fetch(ctx, u.String(), fetchOptions(CardType+", application/json;q=0.5"))
		if err != nil {
			return s, err
		}
		data = f.Body
	}
	shown := s.Card
	if e.URL == "" {
		shown = fmt.Sprintf("the data of the catalog entry %q", e.Identifier)
	}
	c, err := ParseCard(shown, data)
	if err != nil {
		return s, err
	}
	return row(s, c), nil
}

// row is s filled from card c and its first streamable-http remote
// (else its first).
func row(s Server, c *Card) Server {
	s.Name, s.Title, s.Version, s.Description = c.Name, c.Title, c.Version, c.Description
	if r := c.Remote(); r != nil {
		s.Transport, s.URL, s.Protocols = r.Type, urlx.Redact(r.URL), r.Protocols
	}
	return s
}

// Remote is the remote mcpc connects to: the first streamable-http one,
// else the first; nil when the card has none.
func (c *Card) Remote() *Remote {
	for i := range c.Remotes {
		if c.Remotes[i].Type == "streamable-http" {
			return &c.Remotes[i]
		}
	}
	if len(c.Remotes) > 0 {
		return &c.Remotes[0]
	}
	return nil
}
