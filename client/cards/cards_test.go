package cards

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpc-dev/mcpc/internal/fail"
)

// TestCatalogRefusals pins what a catalog that is not one, or whose
// entries cannot be read, is told as; none of these needs a fetch.
func TestCatalogRefusals(t *testing.T) {
	card := `{"$schema":"` + SchemaURL + `","name":"dev.mcpc/x","version":"1"}`
	many := make([]string, MaxEntries+1)
	for i := range many {
		many[i] = `{"identifier":"e","type":"` + CardType + `","data":` + card + `}`
	}
	for _, tc := range []struct {
		doc, want string
		code      fail.Code
	}{
		{`[]`, "https://h/c is not an AI Catalog: it is not a JSON object", fail.Protocol},
		{`{"entries":{}}`, "https://h/c is not an AI Catalog: its member entries is not an array", fail.Protocol},
		{`{"specVersion":"1.0"}`, "https://h/c is not an AI Catalog: it has no entries array", fail.Protocol},
		{`{"entries":[` + strings.Join(many, ",") + `]}`, fmt.Sprintf("https://h/c lists %d Server Cards, more than the %d mcpc reads; refused", MaxEntries+1, MaxEntries), fail.TooLarge},
		{`{"entries":[{"identifier":"a","type":"` + CardType + `"}]}`,
			`1 of the 1 Server Cards https://h/c lists could not be read: the catalog entry "a" has neither of url and data`, fail.Protocol},
		{`{"entries":[{"identifier":"a","type":"` + CardType + `","url":"/x","data":` + card + `}]}`,
			`1 of the 1 Server Cards https://h/c lists could not be read: the catalog entry "a" has both of url and data`, fail.Protocol},
		{`{"entries":[{"identifier":"a","type":"` + CardType + `","url":"%zz"}]}`,
			`1 of the 1 Server Cards https://h/c lists could not be read: the catalog entry "a" has a url that is not a URL`, fail.Protocol},
		{`{"entries":[{"identifier":"a","mediaType":"` + CardType + `","data":{"name":"x"}}]}`,
			`1 of the 1 Server Cards https://h/c lists could not be read: the data of the catalog entry "a" is not a Server Card: its $schema is not ` + SchemaURL, fail.Protocol},
	} {
		_, err := readCatalog(context.Background(), "https://h/c", []byte(tc.doc))
		if err == nil || err.Error() != tc.want || fail.CodeOf(err) != tc.code {
			t.Errorf("readCatalog(%.60s) = %v (%s), want %q (%s)", tc.doc, err, fail.CodeOf(err), tc.want, tc.code)
		}
	}
	found, err := readCatalog(context.Background(), "https://h/c", []byte(`{"entries":[{"identifier":"a","type":"`+CardType+`","data":`+card+`}]}`))
	if err != nil || len(found.Servers) != 1 || found.Servers[0].Name != "dev.mcpc/x" {
		t.Errorf("an inline card: %+v, %v", found, err)
	}
}

// TestEntryRefusals pins the cards config add refuses to make an entry
// of, and what it writes of a secret.
func TestEntryRefusals(t *testing.T) {
	remote := func(url string, more string) string {
		return `{"$schema":"` + SchemaURL + `","name":"dev.mcpc/x","version":"1","remotes":[{"type":"streamable-http","url":"` + url + `"` + more + `}]}`
	}
	for _, tc := range []struct{ card, want string }{
		{`{"$schema":"` + SchemaURL + `","name":"dev.mcpc/x","version":"1"}`, "C lists no remote"},
		{remote("https://{tenant}.example/mcp", ""), "C: its remote's url uses {tenant}, which the card does not define"},
		{remote("https://{tenant}.example/mcp", `,"variables":{"tenant":{"isRequired":true}}`), "C: its remote's url needs {tenant}, which the card gives no value for"},
		{remote("https://{tenant}.example/mcp", `,"variables":{"tenant":{"isSecret":true,"default":"t"}}`), "C: its remote's url needs {tenant}, which the card gives no value for"},
		{remote("https://h.example/mcp", `,"headers":[{"name":"Bad Name","isRequired":true}]`), `C: a header's name "Bad Name" is not an HTTP header name`},
		{remote("https://h.example/mcp", `,"headers":[{"name":"A","value":"{v}","variables":{"v":{"default":"x}"}}}]`), "C: its header A has a $ in its text, which the config would expand from your environment; refused"},
	} {
		c, err := ParseCard("C", []byte(tc.card))
		if err != nil {
			t.Fatalf("ParseCard(%s): %v", tc.card, err)
		}
		if _, err := c.Entry("C", "n"); err == nil || err.Error() != tc.want {
			t.Errorf("Entry of %s: %v, want %q", tc.card, err, tc.want)
		}
	}
	c, err := ParseCard("C", []byte(remote("https://h.example/mcp", `,"headers":[{"name":"authorization","value":"Bearer {t}","variables":{"t":{"isSecret":true,"value":"LEAKED","default":"LEAKED"}}}]`)))
	if err != nil {
		t.Fatal(err)
	}
	e, err := c.Entry("C", "my-srv")
	if err != nil || e.Headers["Authorization"] != "Bearer ${MCPC_MY_SRV_T}" || len(e.Vars) != 1 || !e.Vars[0].Secret {
		t.Errorf("a secret with a value and a default: %+v, %v; want neither written", e, err)
	}
}

// TestCompare pins what a live server is compared by: the name whole or
// after the slash, what both sides give, the remote at the server's URL.
func TestCompare(t *testing.T) {
	card := &Card{Name: "com.example/weather", Version: "1.0.0", Title: "Weather",
		Remotes: []Remote{{Type: "sse", URL: "https://a.example/sse"}, {Type: "streamable-http", URL: "https://a.example/mcp/", Protocols: []string{"2026-07-28"}}}}
	for _, tc := range []struct {
		live Live
		want string
	}{
		{Live{Info: &mcp.Implementation{Name: "weather", Version: "1.0.0"}, URL: "https://A.example:443/mcp", Revision: "2026-07-28"}, "[]"},
		{Live{Info: &mcp.Implementation{Name: "com.example/weather", Title: "Wetter"}, URL: "https://a.example/sse", SSE: true}, "[{title Weather Wetter}]"},
		{Live{Info: &mcp.Implementation{Name: "other"}, URL: "https://a.example/sse"}, "[{name com.example/weather other} {remotes.type sse streamable-http}]"},
		{Live{URL: "https://a.example/MCP", Revision: "2025-11-25"}, "[{name com.example/weather } {remotes.url https://a.example/sse, https://a.example/mcp/ https://a.example/MCP}]"},
		{Live{Info: &mcp.Implementation{Name: "weather"}, URL: "https://a.example/mcp", Revision: "2025-11-25"}, "[{remotes.supportedProtocolVersions 2026-07-28 2025-11-25}]"},
	} {
		if got := fmt.Sprint(Compare(card, tc.live)); got != tc.want {
			t.Errorf("Compare(%+v) = %s, want %s", tc.live, got, tc.want)
		}
	}
}

// TestTarget pins what discover's argument names: a domain or an origin
// is looked up at its well-known catalogs, over https for a domain.
func TestTarget(t *testing.T) {
	for _, tc := range []struct {
		arg, where string
		wellKnown  bool
		code       fail.Code
	}{
		{"example.com", "https://example.com", true, ""},
		{"example.com:8443", "https://example.com:8443", true, ""},
		{"https://example.com/", "https://example.com", true, ""},
		{"http://localhost:9/", "http://localhost:9", true, ""},
		{"https://example.com/mcp/server-card", "https://example.com/mcp/server-card", false, ""},
		{"https://example.com/?x=1", "https://example.com/?x=1", false, ""},
		{"http://example.com", "", false, fail.Usage},
		{"user@example.com", "", false, fail.Usage},
		{"", "", false, fail.Usage},
	} {
		where, wk, err := target(tc.arg)
		if where != tc.where || wk != tc.wellKnown || fail.CodeOf(err) != tc.code {
			t.Errorf("target(%q) = %q, %v, %v; want %q, %v, %q", tc.arg, where, wk, err, tc.where, tc.wellKnown, tc.code)
		}
	}
}

// TestValidName holds validName to the schema's pattern.
func TestValidName(t *testing.T) {
	for name, want := range map[string]bool{
		"com.example/weather": true, "a-b.c/x_y.z-1": true, "io.github.u/x": true,
		"noslash": false, "a/b/c": false, "/x": false, "x/": false, "a b/c": false, "a/b c": false, "a_b/c": false, "é/x": false,
	} {
		if got := validName(name); got != want {
			t.Errorf("validName(%q) = %v, want %v", name, got, want)
		}
	}
}
