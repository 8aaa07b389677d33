package testscripts

import (
	"encoding/json"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

const (
	cardType   = "application/mcp-server-card+json"
	cardSchema = "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json"
)

// cardserver VAR MCPURL [legacy|none]: serve, on a loopback port, an AI
// Catalog at /.well-known/ai-catalog.json (legacy: only the MCP Catalog
// of the earlier drafts, /.well-known/mcp/catalog.json; none: neither)
// and the Server Cards it lists, whose remote is MCPURL (the in-repo
// server), and the hostile documents under /bad/ (see cardRoutes). $VAR
// gets the server's origin.
func cmdCardServer(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 || len(args) > 3 {
		ts.Fatalf("usage: cardserver VAR MCPURL [legacy|none]")
	}
	mode := ""
	if len(args) == 3 {
		mode = args[2]
	}
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		serveJSON(w, cardType, card(args[1], "1.0.0", "2026-07-28", "2025-11-25"))
	}))
	ts.Defer(other.Close)
	mux := http.NewServeMux()
	for path, h := range cardRoutes(args[1], other.URL) {
		mux.HandleFunc(path, h)
	}
	catalog := map[string]any{"specVersion": "1.0", "entries": []any{
		map[string]any{"identifier": "urn:air:mcpc.dev:mcp:testserver", "type": cardType, "url": "/cards/testserver"},
		map[string]any{"identifier": "urn:air:mcpc.dev:mcp:inline", "type": cardType, "data": card(args[1]+"?inline=1", "2.0.0")},
		map[string]any{"identifier": "urn:air:mcpc.dev:a2a:agent", "type": "application/a2a-agent-card+json", "url": "/agent.json"},
	}}
	switch mode {
	case "":
		mux.HandleFunc("/.well-known/ai-catalog.json", func(w http.ResponseWriter, r *http.Request) {
			serveJSON(w, "application/ai-catalog+json", catalog)
		})
	case "legacy":
		mux.HandleFunc("/.well-known/mcp/catalog.json", func(w http.ResponseWriter, r *http.Request) {
			serveJSON(w, "application/json", catalog)
		})
	case "none":
	default:
		ts.Fatalf("cardserver: unknown mode %q", mode)
	}
	srv := httptest.NewUnstartedServer(mux)
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.Start()
	ts.Defer(srv.Close)
	ts.Setenv(args[0], srv.URL)
}

// cardRoutes are the card server's cards: /cards/testserver describes the
// in-repo server at mcpURL as it is; /cards/drifted does not (another
// name, version and protocol list). Under /bad/: a card over 1 MiB
// (huge), one nested 100 deep (deep), a redirect to the other origin
// (redirect) and one within the origin (moved), a catalog whose entry is
// plain http on a host name (insecure), a page served as text/html (html),
// a body that is no JSON (notjson), JSON that is no card (notcard), a
// header value with a ${VAR} in it (dollar), an answer that never comes
// (slow) and a remote on plain http off
// loopback (plain). /cards/templated has a URL variable and header
// templates, a secret among them.
func cardRoutes(mcpURL, other string) map[string]http.HandlerFunc {
	good := card(mcpURL, "1.0.0", "2026-07-28", "2025-11-25")
	fixed := func(ct string, v any) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) { serveJSON(w, ct, v) }
	}
	deep := map[string]any{}
	for k, v := range good {
		deep[k] = v
	}
	deep["_meta"] = json.RawMessage(strings.Repeat("[", 100) + strings.Repeat("]", 100))
	huge := map[string]any{}
	for k, v := range good {
		huge[k] = v
	}
	huge["_meta"] = map[string]string{"dev.mcpc/pad": strings.Repeat("x", 2<<20)}
	dollar := card(mcpURL, "1.0.0")
	dollar["remotes"] = []any{map[string]any{"type": "streamable-http", "url": mcpURL,
		"headers": []any{map[string]any{"name": "X-Token", "value": "${GITHUB_TOKEN}"}}}}
	drifted := card(mcpURL, "0.9.0", "2025-06-18")
	drifted["name"] = "dev.mcpc/another-server"
	return map[string]http.HandlerFunc{
		"/cards/testserver": func(w http.ResponseWriter, r *http.Request) {
			// The card's type first: what the extension says a client asks for.
			if !strings.HasPrefix(r.Header.Get("Accept"), cardType+",") {
				http.Error(w, "wrong Accept: "+r.Header.Get("Accept"), http.StatusNotAcceptable)
				return
			}
			serveJSON(w, cardType, good)
		},
		"/cards/drifted": fixed(cardType, drifted),
		"/bad/huge":      fixed(cardType, huge),
		"/bad/deep":      fixed(cardType, deep),
		"/bad/redirect": func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, other+"/cards/testserver", http.StatusFound)
		},
		"/bad/moved": func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "/cards/drifted", http.StatusFound)
		},
		"/bad/insecure": fixed("application/ai-catalog+json", map[string]any{"specVersion": "1.0", "entries": []any{
			map[string]any{"identifier": "urn:air:mcpc.dev:mcp:testserver", "type": cardType, "url": "/cards/testserver"},
			map[string]any{"identifier": "urn:air:cards.example:mcp:plain", "type": cardType, "url": "http://cards.example/server-card"},
		}}),
		"/bad/html": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			io.WriteString(w, "<html><body>Sign in</body></html>")
		},
		"/bad/notjson": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", cardType)
			io.WriteString(w, "name: dev.mcpc/yaml\n")
		},
		"/bad/dollar": fixed(cardType, dollar),
		"/bad/slow": func(w http.ResponseWriter, r *http.Request) {
			<-r.Context().Done() // the client gives up first
		},
		"/bad/plain": fixed(cardType, card("http://mcp.example/mcp", "1.0.0")),
		"/cards/templated": fixed(cardType, map[string]any{"$schema": cardSchema, "name": "dev.mcpc/templated", "version": "1",
			"remotes": []any{map[string]any{"type": "streamable-http", "url": strings.Replace(mcpURL, "/mcp", "/{path}", 1),
				"variables": map[string]any{"path": map[string]any{"description": "the endpoint's path", "default": "mcp"}},
				"headers": []any{
					map[string]any{"name": "Authorization", "value": "Bearer {token}", "variables": map[string]any{"token": map[string]any{"isSecret": true, "default": "not-written"}}},
					map[string]any{"name": "X-Region", "value": "eu"},
					map[string]any{"name": "X-Optional", "description": "not sent when not given"},
				}}}}),
		"/bad/notcard": fixed(cardType, map[string]any{"$schema": cardSchema, "name": "no slash", "version": "1"}),
	}
}

// card is a Server Card of the in-repo server at url, at version, whose
// remote supports protocols (none: it says nothing of them).
func card(url, version string, protocols ...string) map[string]any {
	remote := map[string]any{"type": "streamable-http", "url": url,
		"headers": []any{map[string]any{"name": "X-Api-Key", "description": "the account's API key", "isRequired": true, "isSecret": true}}}
	if len(protocols) > 0 {
		remote["supportedProtocolVersions"] = protocols
	}
	return map[string]any{"$schema": cardSchema, "name": "dev.mcpc/mcpc-testserver", "version": version,
		"title": "mcpc test server", "description": "The server mcpc's tests run against", "remotes": []any{remote}}
}

func serveJSON(w http.ResponseWriter, contentType string, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", contentType)
	w.Write(b)
}
