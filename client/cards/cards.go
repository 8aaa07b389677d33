// Package cards reads MCP Server Cards (SEP-2127, the experimental
// server-card extension) and the catalogs that list them: where a
// domain's servers are and how to connect to them, learned before any
// connection, from documents anyone may publish. Each fetch is bounded
// (transport.Fetch); a card is checked before it is used, and never
// trusted for more than where to connect.
package cards

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/client/transport"
	"github.com/mcpc-dev/mcpc/internal/fail"
)

// The media types and the schema the extension defines.
const (
	CardType    = "application/mcp-server-card+json"
	CatalogType = "application/ai-catalog+json"
	SchemaURL   = "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json"
)

// Bounds of what is read from a host: a card or a catalog of a hundred
// servers is a few kilobytes; a config file's nesting bound (64) is far
// past a card's deepest member (remotes[].headers[].variables.X.choices).
const (
	MaxBytes   = 1 << 20
	MaxDepth   = config.MaxNesting
	MaxEntries = 100
)

// Card is the part of a Server Card mcpc reads; the card is open
// (other members and _meta are allowed) and they are ignored.
type Card struct {
	Schema      string   `json:"$schema"`
	Name        string   `json:"name"`
	Version     string   `json:"version"`
	Description string   `json:"description,omitempty"`
	Title       string   `json:"title,omitempty"`
	WebsiteURL  string   `json:"websiteUrl,omitempty"`
	Remotes     []Remote `json:"remotes,omitempty"`
}

// Remote is one HTTP endpoint of a card.
type Remote struct {
	Type      string           `json:"type"`
	URL       string           `json:"url"`
	Headers   []Header         `json:"headers,omitempty"`
	Variables map[string]Input `json:"variables,omitempty"`
	Protocols []string         `json:"supportedProtocolVersions,omitempty"`
}

// Input is a value a card asks for: a URL variable or a header's.
type Input struct {
	Description string `json:"description,omitempty"`
	IsRequired  bool   `json:"isRequired,omitempty"`
	IsSecret    bool   `json:"isSecret,omitempty"`
	Default     string `json:"default,omitempty"`
	Value       string `json:"value,omitempty"`
}

// Header is a header a remote wants, its value possibly a template of
// its own variables.
type Header struct {
	Input
	Name      string           `json:"name"`
	Variables map[string]Input `json:"variables,omitempty"`
}

// validName says name matches the card schema's pattern
// ^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$: reverse DNS, one slash, a name.
func validName(name string) bool {
	ns, n, ok := strings.Cut(name, "/")
	word := func(s, more string) bool {
		for i := 0; i < len(s); i++ {
			c := s[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte(more, c) >= 0) {
				return false
			}
		}
		return s != ""
	}
	return ok && word(ns, ".-") && word(n, "._-")
}

// ParseCard reads data, fetched from (or inlined at) where (as it may be
// printed: redacted), as a Server
// Card: a JSON object with the v1 $schema, a reverse-DNS name, a version,
// and remotes of the two transport types, each at an http(s) URL or a
// template. Anything else is a protocol failure naming where.
func ParseCard(where string, data []byte) (*Card, error) {
	var c Card
	if err := decode(data, &c); err != nil {
		return nil, notCard(where, err.Error())
	}
	switch {
	case c.Schema != SchemaURL:
		return nil, notCard(where, "its $schema is not "+SchemaURL)
	case len(c.Name) < 3 || len(c.Name) > 200 || !validName(c.Name):
		return nil, notCard(where, "its name is not a reverse-DNS name with one slash (com.example/server)")
	case c.Version == "" || len(c.Version) > 255:
		return nil, notCard(where, "it has no version")
	}
	for _, r := range c.Remotes {
		if r.Type != "streamable-http" && r.Type != "sse" {
			return nil, notCard(where, "a remote's type is not streamable-http or sse")
		}
		if !config.IsURL(r.URL) && !strings.HasPrefix(r.URL, "{") {
			return nil, notCard(where, "a remote's url is neither http(s) nor a {variable} template")
		}
	}
	return &c, nil
}

// decode reads data into v, saying in a user's words what is wrong: not
// JSON, not an object, or which member has the wrong type.
func decode(data []byte, v any) error {
	if !json.Valid(data) {
		return errors.New("it is not JSON")
	}
	if t := bytes.TrimLeft(data, " \t\r\n"); len(t) == 0 || t[0] != '{' {
		return errors.New("it is not a JSON object")
	}
	var te *json.UnmarshalTypeError
	if err := json.Unmarshal(data, v); errors.As(err, &te) {
		return fmt.Errorf("its member %s is not %s", cmp.Or(te.Field, "(top level)"), jsonKind(te.Type.Kind()))
	} else if err != nil {
		return errors.New("it is not JSON of that shape")
	}
	return nil
}

// jsonKind names a Go kind as JSON calls it.
func jsonKind(k reflect.Kind) string {
	switch k {
	case reflect.String:
		return "a string"
	case reflect.Slice:
		return "an array"
	case reflect.Bool:
		return "a boolean"
	}
	return "an object"
}

func notCard(where, why string) error {
	return fail.New(fail.Protocol, "a Server Card is the JSON document of "+SchemaURL,
		"%s is not a Server Card: %s", where, why)
}

// fetchOptions are the bounds of every fetch of a catalog or a card.
func fetchOptions(accept string) transport.FetchOptions {
	return transport.FetchOptions{Accept: accept, MaxBytes: MaxBytes, MaxDepth: MaxDepth}
}
