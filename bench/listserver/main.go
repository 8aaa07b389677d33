// Command listserver is an MCP server written without the SDK, as a server
// written elsewhere would be, that serves one huge list (tools, prompts or
// resources) and streams it: each answer is written item by item through a
// small buffer, so the server's own memory stays a few MiB whatever the
// list's size, and the peak RSS wait4 reports for a client that spawned it
// is the client's. bench/harness measures mcpc against it and the scripts
// (testscripts/testdata/script/huge_any*.txtar) pin the same bounds.
//
//	listserver [-era 2025|2026] [-n N] [-kind tools|prompts|resources]
//	           [-page N] [-ttl MS] [-http ADDR -url-file FILE]
//
// -era 2025 speaks 2025-11-25 (initialize; server/discover is an unknown
// method) and never sends cache hints; -era 2026 speaks 2026-07-28 only
// (server/discover; initialize is refused with -32022) and, with -ttl,
// marks its discover and list results fresh for that long. -page N sends
// N items a page with a nextCursor; 0 sends one page. The tool echo
// answers tools/call, as does each generated tool-K (with its name).
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
)

type server struct {
	era  string // "2025" or "2026"
	n    int
	kind string // the list that is huge: tools, prompts or resources
	page int    // items a page; 0: one page
	ttl  int    // ttlMs on cacheable results (2026 only); 0: no hints
}

// maxRequest bounds a request the server reads: mcpc's are small.
const maxRequest = 1 << 20

func main() {
	var s server
	var addr, urlFile string
	flag.StringVar(&s.era, "era", "2025", "protocol era: 2025 (2025-11-25) or 2026 (2026-07-28)")
	flag.IntVar(&s.n, "n", 200000, "items of the huge list")
	flag.StringVar(&s.kind, "kind", "tools", "the huge list: tools, prompts or resources")
	flag.IntVar(&s.page, "page", 0, "items a page (nextCursor); 0: one page")
	flag.IntVar(&s.ttl, "ttl", 0, "ttlMs cache hint on discover and list results (2026 only); 0: none")
	flag.StringVar(&addr, "http", "", "serve Streamable HTTP on ADDR (e.g. 127.0.0.1:0) instead of stdio")
	flag.StringVar(&urlFile, "url-file", "", "with -http, write the server's URL to this file")
	flag.Parse()
	if s.era != "2025" && s.era != "2026" || s.kind != "tools" && s.kind != "prompts" && s.kind != "resources" || s.n < 0 || s.page < 0 || s.ttl < 0 {
		fmt.Fprintln(os.Stderr, "listserver: bad flags (see the package comment)")
		os.Exit(2)
	}
	if s.era == "2025" {
		s.ttl = 0
	}
	if addr == "" {
		if err := s.stdio(os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "listserver:", err)
			os.Exit(1)
		}
		return
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "listserver:", err)
		os.Exit(1)
	}
	url := "http://" + ln.Addr().String() + "/mcp"
	if urlFile != "" {
		if err := os.WriteFile(urlFile, []byte(url+"\n"), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "listserver:", err)
			os.Exit(1)
		}
	} else {
		fmt.Println(url)
	}
	fmt.Fprintln(os.Stderr, "listserver:", http.Serve(ln, http.HandlerFunc(s.serveHTTP)))
	os.Exit(1)
}

// request is a JSON-RPC message from the client: id absent for a
// notification.
type request struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Cursor    *string        `json:"cursor"`
		Name      string         `json:"name"`
		URI       string         `json:"uri"`
		Arguments map[string]any `json:"arguments"`
	} `json:"params"`
}

// stdio answers newline-delimited requests one at a time.
func (s *server) stdio(in io.Reader, out io.Writer) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), maxRequest)
	w := bufio.NewWriterSize(out, 64<<10)
	for sc.Scan() {
		var req request
		if err := json.Unmarshal(sc.Bytes(), &req); err != nil {
			return fmt.Errorf("a request that is not JSON: %v", err)
		}
		if len(req.ID) == 0 {
			continue // notifications/initialized, cancelled, …
		}
		s.answer(w, &req)
		w.WriteByte('\n')
		if err := w.Flush(); err != nil {
			return err
		}
	}
	return sc.Err()
}

// serveHTTP is Streamable HTTP: each POST one request, answered with
// application/json written as it is made (chunked). No standalone GET
// stream; sessions are not checked.
func (s *server) serveHTTP(rw http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodPost:
	case http.MethodDelete:
		return
	default:
		http.Error(rw, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(rw, r.Body, maxRequest))
	var req request
	if err == nil {
		err = json.Unmarshal(body, &req)
	}
	if err != nil {
		http.Error(rw, "bad request body", http.StatusBadRequest)
		return
	}
	if len(req.ID) == 0 {
		rw.WriteHeader(http.StatusAccepted)
		return
	}
	rw.Header().Set("Content-Type", "application/json")
	switch {
	case s.era == "2025" && req.Method == "initialize":
		rw.Header().Set("Mcp-Session-Id", "listserver-session")
	case s.era == "2025" && r.Header.Get("Mcp-Session-Id") == "":
		// What a 2025 server says to a request outside a session (the
		// probe's server/discover among them).
		rw.WriteHeader(http.StatusBadRequest)
		io.WriteString(rw, `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Bad Request: Server not initialized"}}`)
		return
	case s.era == "2026" && s.unknown(req.Method):
		rw.WriteHeader(http.StatusNotFound)
	}
	w := bufio.NewWriterSize(rw, 64<<10)
	s.answer(w, &req)
	w.Flush()
}

func (s *server) unknown(method string) bool {
	switch method {
	case "server/discover", "initialize", "tools/list", "prompts/list", "resources/list", "resources/templates/list", "tools/call", "prompts/get", "resources/read", "ping":
		return false
	}
	return true
}

const caps = `{"tools":{},"prompts":{},"resources":{}}`

// answer writes the response to req (no newline).
func (s *server) answer(w *bufio.Writer, req *request) {
	id := string(req.ID)
	result := func(body string) {
		w.WriteString(`{"jsonrpc":"2.0","id":` + id + `,"result":` + body + `}`)
	}
	fail := func(code int, msg, data string) {
		e, _ := json.Marshal(msg)
		w.WriteString(`{"jsonrpc":"2.0","id":` + id + `,"error":{"code":` + strconv.Itoa(code) + `,"message":` + string(e))
		if data != "" {
			w.WriteString(`,"data":` + data)
		}
		w.WriteString(`}}`)
	}
	switch m := req.Method; {
	case m == "initialize" && s.era == "2025":
		result(`{"protocolVersion":"2025-11-25","capabilities":` + caps + `,"serverInfo":{"name":"listserver","version":"1.0.0"}}`)
	case m == "initialize":
		fail(-32022, "unsupported protocol version", `{"supported":["2026-07-28"]}`)
	case m == "server/discover" && s.era == "2026":
		result(`{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"listserver","version":"1.0.0"}},` + s.hints() + `"supportedVersions":["2026-07-28"],"capabilities":` + caps + `}`)
	case m == "ping":
		result(`{}`)
	case m == "tools/list" || m == "prompts/list" || m == "resources/list":
		kind := strings.TrimSuffix(m, "/list")
		start, err := s.cursor(req.Params.Cursor)
		if err != nil {
			fail(-32602, err.Error(), "")
			return
		}
		w.WriteString(`{"jsonrpc":"2.0","id":` + id + `,"result":{`)
		if s.era == "2026" {
			w.WriteString(`"resultType":"complete",` + s.hints())
		}
		s.items(w, kind, start)
		w.WriteString(`}}`)
	case m == "resources/templates/list":
		result(`{"resourceTemplates":[]}`)
	case m == "tools/call":
		name := req.Params.Name
		if name == "huge" {
			n, _ := req.Params.Arguments["bytes"].(float64)
			w.WriteString(`{"jsonrpc":"2.0","id":` + id + `,"result":{"content":[{"type":"text","text":"`)
			hugeText(w, int(min(max(n, 0), maxHuge)))
			w.WriteString(`"}]}}`)
		} else if name == "echo" {
			text, _ := req.Params.Arguments["text"].(string)
			t, _ := json.Marshal(text)
			result(`{"content":[{"type":"text","text":` + string(t) + `}]}`)
		} else if s.generated("tools", name, "tool-") {
			result(`{"content":[{"type":"text","text":"` + name + `"}]}`)
		} else {
			fail(-32602, "unknown tool: "+name, "")
		}
	case m == "prompts/get" && s.generated("prompts", req.Params.Name, "prompt-"):
		result(`{"messages":[{"role":"user","content":{"type":"text","text":"` + req.Params.Name + `"}}]}`)
	case m == "prompts/get":
		fail(-32602, "unknown prompt: "+req.Params.Name, "")
	case m == "resources/read" && s.generated("resources", strings.TrimPrefix(req.Params.URI, "mem://r/"), ""):
		u, _ := json.Marshal(req.Params.URI)
		result(`{"contents":[{"uri":` + string(u) + `,"mimeType":"text/plain","text":"resource"}]}`)
	case m == "resources/read":
		fail(-32002, "resource not found", "")
	default:
		fail(-32601, "method not found: "+m, "")
	}
}

// hints are the cache hints a 2026 result carries, each followed by a
// comma; "" without -ttl.
func (s *server) hints() string {
	if s.ttl == 0 {
		return ""
	}
	return `"ttlMs":` + strconv.Itoa(s.ttl) + `,"cacheScope":"public",`
}

// generated says name is prefix+K of a generated item of the huge list.
func (s *server) generated(kind, name, prefix string) bool {
	if s.kind != kind {
		return false
	}
	k, err := strconv.Atoi(strings.TrimPrefix(name, prefix))
	return strings.HasPrefix(name, prefix) && err == nil && k >= 0 && k < s.n && strconv.Itoa(k) == strings.TrimPrefix(name, prefix)
}

var errCursor = errors.New("invalid cursor")

func (s *server) cursor(c *string) (int, error) {
	if c == nil {
		return 0, nil
	}
	k, err := strconv.Atoi(*c)
	if err != nil || k < 0 || k > s.n {
		return 0, errCursor
	}
	return k, nil
}

// items writes the "KEY":[…] of one page of kind from start, and its
// nextCursor when more follow. The huge list is generated item by item;
// the other lists hold one small item (echo among the tools, so that a
// prompts or resources server can be called too).
func (s *server) items(w *bufio.Writer, kind string, start int) {
	w.WriteString(`"` + kind + `":[`)
	if kind != s.kind {
		w.WriteString(small[kind])
		w.WriteString(`]`)
		return
	}
	end := s.n
	if s.page > 0 {
		end = min(s.n, start+s.page)
	}
	var num []byte
	for i := start; i < end; i++ {
		if i > start {
			w.WriteByte(',')
		}
		// Piece by piece: the server's memory stays a buffer's, whatever n.
		num = strconv.AppendInt(num[:0], int64(i), 10)
		switch kind {
		case "tools":
			// About 130 bytes, as in the issue (200,000 tools: 26.6 MB).
			w.WriteString(`{"name":"tool-`)
			w.Write(num)
			w.WriteString(`","description":"Tool `)
			w.Write(num)
			w.WriteString(` of a long list.","inputSchema":{"type":"object","properties":{"query":{"type":"string"}}}}`)
		case "prompts":
			w.WriteString(`{"name":"prompt-`)
			w.Write(num)
			w.WriteString(`","description":"Prompt `)
			w.Write(num)
			w.WriteString(` of a long list.","arguments":[{"name":"query","required":true}]}`)
		case "resources":
			w.WriteString(`{"uri":"mem://r/`)
			w.Write(num)
			w.WriteString(`","name":"resource-`)
			w.Write(num)
			w.WriteString(`","description":"Resource `)
			w.Write(num)
			w.WriteString(` of a long list.","mimeType":"text/plain"}`)
		}
	}
	if kind == "tools" && end == s.n {
		if end > start {
			w.WriteByte(',')
		}
		w.WriteString(small["tools"])
	}
	w.WriteString(`]`)
	if end < s.n {
		w.WriteString(`,"nextCursor":"` + strconv.Itoa(end) + `"`)
	}
}

// small are the lists that are not huge: one item each (the tools echo
// and huge).
var small = map[string]string{
	"tools": `{"name":"echo","description":"Echo the text back.","inputSchema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}},` +
		`{"name":"huge","description":"Return bytes bytes of numbered 64-byte lines.","inputSchema":{"type":"object","properties":{"bytes":{"type":"integer"}},"required":["bytes"]}}`,
	"prompts":   `{"name":"greet","description":"A greeting."}`,
	"resources": `{"uri":"mem://readme","name":"readme","mimeType":"text/plain"}`,
}

// maxHuge bounds the huge tool's result.
const maxHuge = 1 << 30

// hugeText writes n bytes of text (as a JSON string's content): numbered
// lines of 64 bytes, the newline counted as one byte of the text though
// it is written escaped, as the in-repo server's huge tool does.
func hugeText(w *bufio.Writer, n int) {
	for i := 1; n > 0; i++ {
		line := fmt.Sprintf("line %06d %s", i, strings.Repeat("x", 52))
		if n < len(line)+1 {
			w.WriteString(line[:n])
			return
		}
		w.WriteString(line + `\n`)
		n -= len(line) + 1
	}
}
