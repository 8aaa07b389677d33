package testserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/png"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const testTimeout = 10 * time.Second

var allTools = []string{shellyName, "add", "app-only", "app-view", "bad-output", "echo", "escape", "fail", "huge", "image", "kinds", "many", "region", "remote-ref", "self-ref", "sleep", "types", "unknown-content"}

// binDir holds the server binary, built once for the tests that need a real
// process (exit codes, process groups, the default stdio path).
var (
	binDir   string
	binOnce  sync.Once
	binPath  string
	binError error
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "testserver-bin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func serverBinary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		goTool, err := exec.LookPath("go")
		if err != nil {
			binError = err
			return
		}
		binPath = filepath.Join(binDir, "mcpc-testserver")
		cmd := exec.Command(goTool, "build", "-o", binPath, "./cmd/mcpc-testserver")
		if out, err := cmd.CombinedOutput(); err != nil {
			binError = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binError != nil {
		t.Fatalf("building the server: %v", binError)
	}
	return binPath
}

// syncBuffer is a bytes.Buffer safe for the server's and the test's goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// pipeServer runs the server in-process over pipes and returns the client
// ends of its stdin and stdout.
func pipeServer(t *testing.T, args ...string) (stdin io.WriteCloser, stdout io.ReadCloser, stderr *syncBuffer) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	stderr = new(syncBuffer)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, args, streams{in: inR, out: outW, err: stderr})
		outW.Close()
	}()
	t.Cleanup(func() {
		inW.Close()
		cancel()
		select {
		case code := <-done:
			if code != 0 {
				t.Errorf("server exited with %d; stderr:\n%s", code, stderr)
			}
		case <-time.After(testTimeout):
			t.Errorf("server did not stop")
		}
	})
	return inW, outR, stderr
}

func newClient(opts *mcp.ClientOptions) *mcp.Client {
	if opts == nil {
		opts = &mcp.ClientOptions{}
	}
	opts.Capabilities = &mcp.ClientCapabilities{}
	return mcp.NewClient(&mcp.Implementation{Name: "testserver-test", Version: "0"}, opts)
}

func connect(t *testing.T, client *mcp.Client, transport mcp.Transport) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	cs, err := client.Connect(ctx, transport, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// stdioSession connects a go-sdk client to an in-process server.
func stdioSession(t *testing.T, args ...string) *mcp.ClientSession {
	t.Helper()
	in, out, _ := pipeServer(t, args...)
	return connect(t, newClient(nil), &mcp.IOTransport{Reader: out, Writer: in})
}

// httpServer runs the server in-process on a loopback port and returns its URL.
func httpServer(t *testing.T, args ...string) (url string, stderr *syncBuffer) {
	t.Helper()
	urlFile := filepath.Join(t.TempDir(), "url")
	args = append([]string{"--http", "127.0.0.1:0", "--url-file", urlFile}, args...)
	stderr = new(syncBuffer)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, args, streams{in: io.NopCloser(strings.NewReader("")), out: nopWriteCloser{io.Discard}, err: stderr})
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case code := <-done:
			if code != 0 {
				t.Errorf("server exited with %d; stderr:\n%s", code, stderr)
			}
		case <-time.After(testTimeout):
			t.Errorf("server did not stop")
		}
	})
	deadline := time.Now().Add(testTimeout)
	for time.Now().Before(deadline) {
		if data, err := os.ReadFile(urlFile); err == nil {
			url = strings.TrimSuffix(string(data), "\n")
			if !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.HasSuffix(url, "/mcp") {
				t.Fatalf("url file holds %q", data)
			}
			if !strings.Contains(stderr.String(), url+"\n") {
				t.Errorf("stderr %q lacks the URL", stderr)
			}
			return url, stderr
		}
		select {
		case code := <-done:
			t.Fatalf("server exited with %d; stderr:\n%s", code, stderr)
		case <-time.After(10 * time.Millisecond):
		}
	}
	t.Fatalf("no url file; stderr:\n%s", stderr)
	return "", nil
}

func callTool(t *testing.T, cs *mcp.ClientSession, name string, args any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	return res
}

func onlyText(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if len(res.Content) != 1 {
		t.Fatalf("want one content item, got %d", len(res.Content))
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("want text content, got %T", res.Content[0])
	}
	return tc.Text
}

func jsonString(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestToolsList(t *testing.T) {
	cs := stdioSession(t)
	ctx := context.Background()
	tools := map[string]*mcp.Tool{}
	var names []string
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		tools[tool.Name] = tool
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	if !slices.Equal(names, allTools) {
		t.Fatalf("tools = %v, want %v", names, allTools)
	}

	wantRequired := map[string][]string{
		"echo": {"text"}, "add": {"a", "b"}, "huge": {"bytes"}, "many": {"count"}, "sleep": {"ms"}, "types": {"s"},
		"image": nil, "escape": nil, "fail": nil, "app-only": nil, "app-view": nil, "unknown-content": nil,
	}
	for name, want := range wantRequired {
		schema := tools[name].InputSchema.(map[string]any)
		var got []string
		if req, ok := schema["required"].([]any); ok {
			for _, r := range req {
				got = append(got, r.(string))
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: required = %v, want %v", name, got, want)
		}
	}

	echo := tools["echo"]
	if echo.Title != "Echo" || echo.Description != "Echo the text back.\nSecond line of description." {
		t.Errorf("echo title/description = %q / %q", echo.Title, echo.Description)
	}
	props := echo.InputSchema.(map[string]any)["properties"].(map[string]any)
	if got := jsonString(t, props["repeat"]); !strings.Contains(got, `"default":1`) {
		t.Errorf("echo repeat schema %s lacks default 1", got)
	}
	if tools["add"].Title != "Add numbers" || tools["add"].OutputSchema == nil {
		t.Errorf("add: title %q, output schema %v", tools["add"].Title, tools["add"].OutputSchema)
	}
	if got := jsonString(t, tools["app-only"].Meta); got != `{"ui":{"visibility":["app"]}}` {
		t.Errorf("app-only _meta = %s", got)
	}
	if got := jsonString(t, tools["app-view"].Meta); got != `{"ui":{"resourceUri":"ui://testserver/app-view.html","visibility":["model","app"]},"ui/resourceUri":"ui://testserver/app-view.html"}` {
		t.Errorf("app-view _meta = %s", got)
	}
	if got := jsonString(t, tools["types"].InputSchema.(map[string]any)["properties"].(map[string]any)["arr"]); !strings.Contains(got, `"type":"array"`) {
		t.Errorf("types arr schema = %s", got)
	}
}

func TestToolOutputs(t *testing.T) {
	cs := stdioSession(t)

	for _, tc := range []struct {
		tool    string
		args    any
		want    string
		isError bool
	}{
		{tool: "echo", args: map[string]any{"text": "hi"}, want: "hi"},
		{tool: "echo", args: map[string]any{"text": "ab", "repeat": 3}, want: "ababab"},
		{tool: "echo", args: map[string]any{"text": "ab", "repeat": 0}, want: ""},
		{tool: "escape", want: "\x1b[31mred\x1b[0m \x1b]0;evil title\x07ok\u009b2J \u202edesrever\u202c end\r\nnext line"},
		{tool: "fail", want: "failed: boom", isError: true},
		{tool: "fail", args: map[string]any{"message": "nope"}, want: "failed: nope", isError: true},
		{tool: "app-only", want: "app"},
		{tool: "app-view", want: "viewed"},
	} {
		res := callTool(t, cs, tc.tool, tc.args)
		if got := onlyText(t, res); got != tc.want || res.IsError != tc.isError {
			t.Errorf("%s %v = %q (isError %v), want %q (isError %v)", tc.tool, tc.args, got, res.IsError, tc.want, tc.isError)
		}
	}

	t.Run("add", func(t *testing.T) {
		res := callTool(t, cs, "add", map[string]any{"a": 1, "b": 2.5})
		if got := jsonString(t, res.StructuredContent); got != `{"sum":3.5}` {
			t.Errorf("structured = %s", got)
		}
		if got := onlyText(t, res); got != `{"sum":3.5}` {
			t.Errorf("text = %q", got)
		}
	})

	t.Run("image", func(t *testing.T) {
		res := callTool(t, cs, "image", map[string]any{"count": 2, "size": 100})
		if len(res.Content) != 2 {
			t.Fatalf("got %d items", len(res.Content))
		}
		for _, c := range res.Content {
			img, ok := c.(*mcp.ImageContent)
			if !ok || img.MIMEType != "image/png" || len(img.Data) != 100 {
				t.Fatalf("bad image item %T %+v", c, c)
			}
			if _, err := png.Decode(bytes.NewReader(img.Data)); err != nil {
				t.Errorf("payload is not a PNG: %v", err)
			}
		}
		if n := len(callTool(t, cs, "image", nil).Content); n != 1 {
			t.Errorf("default count gave %d images", n)
		}
	})

	t.Run("many", func(t *testing.T) {
		res := callTool(t, cs, "many", map[string]any{"count": 3})
		var got []string
		for _, c := range res.Content {
			got = append(got, c.(*mcp.TextContent).Text)
		}
		if !slices.Equal(got, []string{"item 1", "item 2", "item 3"}) {
			t.Errorf("many 3: got %q", got)
		}
	})

	t.Run("huge", func(t *testing.T) {
		for _, n := range []int{0, 64, 200, 100000} {
			got := onlyText(t, callTool(t, cs, "huge", map[string]any{"bytes": n}))
			want := ""
			for i := 1; len(want) < n; i++ {
				want += fmt.Sprintf("line %06d %s\n", i, strings.Repeat("x", 51))
			}
			if got != want[:n] {
				t.Errorf("huge %d: got %d bytes starting %.70q", n, len(got), got)
			}
		}
	})

	t.Run("types", func(t *testing.T) {
		args := `{"s":"x","n":0,"b":false,"arr":["a","b"],"obj":{"k":[1,2.50]}}`
		res := callTool(t, cs, "types", json.RawMessage(args))
		// The text keeps number spellings; the client decodes the
		// structured value into float64s.
		want := `{"arr":["a","b"],"b":false,"n":0,"obj":{"k":[1,2.50]},"s":"x"}`
		if got := onlyText(t, res); got != want {
			t.Errorf("text = %s, want %s", got, want)
		}
		if got, want := jsonString(t, res.StructuredContent), strings.Replace(want, "2.50", "2.5", 1); got != want {
			t.Errorf("structured = %s, want %s", got, want)
		}
		if res := callTool(t, cs, "types", map[string]any{"n": 1}); !res.IsError {
			t.Errorf("missing s was accepted")
		}
	})

	t.Run("unknown-content", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
		defer cancel()
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "unknown-content"})
		if err == nil || !strings.Contains(err.Error(), "unrecognized content type") {
			t.Errorf("go-sdk client error = %v", err)
		}
	})
}

func TestResourcesAndPrompts(t *testing.T) {
	cs := stdioSession(t)
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()

	for _, tc := range []struct{ uri, mime, text, blob string }{
		{uri: "test://static/hello", mime: "text/plain", text: "hello resource\n"},
		{uri: "test://static/data.json", mime: "application/json", text: `{"k":1}`},
		{uri: "test://static/blob", mime: "application/octet-stream", blob: "\x00\x01\x02"},
		{uri: "test://static/item-3", mime: "text/plain", text: "item-3\n"},
		{uri: "test://items/42", mime: "text/plain", text: "item 42"},
		{uri: "ui://testserver/app-view.html", mime: "text/html;profile=mcp-app", text: "<!DOCTYPE html>\n<html><body><h1>\x1b[31mApp view\x1b[0m</h1></body></html>\n"},
	} {
		res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: tc.uri})
		if err != nil {
			t.Errorf("read %s: %v", tc.uri, err)
			continue
		}
		c := res.Contents[0]
		if len(res.Contents) != 1 || c.URI != tc.uri || c.MIMEType != tc.mime || c.Text != tc.text || string(c.Blob) != tc.blob {
			t.Errorf("read %s = %+v", tc.uri, c)
		}
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://static/nope"}); err == nil {
		t.Errorf("reading a missing resource succeeded")
	}

	greet, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greet", Arguments: map[string]string{"name": "Ada"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(greet.Messages) != 1 || greet.Messages[0].Role != "user" || greet.Messages[0].Content.(*mcp.TextContent).Text != "Hello, Ada!" {
		t.Errorf("greet = %s", jsonString(t, greet))
	}
	if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greet"}); err == nil {
		t.Errorf("greet without name succeeded")
	}
	plain, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "plain"})
	if err != nil || len(plain.Messages) != 1 {
		t.Errorf("plain = %v, %v", plain, err)
	}
}

func TestPagination(t *testing.T) {
	cs := stdioSession(t, "--page-size", "2")
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()

	page, err := cs.ListTools(ctx, nil)
	if err != nil || len(page.Tools) != 2 || page.NextCursor == "" {
		t.Fatalf("first page: %d tools, cursor %q, err %v", len(page.Tools), page.NextCursor, err)
	}
	var tools []string
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		tools = append(tools, tool.Name)
	}
	slices.Sort(tools)
	if !slices.Equal(tools, allTools) {
		t.Errorf("tools = %v", tools)
	}
	var uris []string
	for r, err := range cs.Resources(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		uris = append(uris, r.URI)
	}
	if len(uris) != 4+itemCount || !slices.Contains(uris, "test://static/item-5") || !slices.Contains(uris, appViewURI) {
		t.Errorf("resources = %v", uris)
	}
	var prompts []string
	for p, err := range cs.Prompts(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		prompts = append(prompts, p.Name)
	}
	if !slices.Equal(prompts, []string{"greet", "plain"}) {
		t.Errorf("prompts = %v", prompts)
	}
	var templates []string
	for rt, err := range cs.ResourceTemplates(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		templates = append(templates, rt.URITemplate+" "+rt.Name)
	}
	if !slices.Equal(templates, []string{"test://items/{id} item"}) {
		t.Errorf("templates = %v", templates)
	}
}

func TestProtocolVersions(t *testing.T) {
	version := func(cs *mcp.ClientSession) string {
		info := cs.InitializeResult()
		if info.ServerInfo == nil || info.ServerInfo.Name != "mcpc-testserver" || info.ServerInfo.Version != "1.0.0" {
			t.Errorf("server info = %+v", info.ServerInfo)
		}
		return info.ProtocolVersion
	}
	check := func(t *testing.T, cs *mcp.ClientSession, want string) {
		t.Helper()
		if got := version(cs); got != want {
			t.Errorf("negotiated %s, want %s", got, want)
		}
		if got := onlyText(t, callTool(t, cs, "echo", map[string]any{"text": "ok"})); got != "ok" {
			t.Errorf("echo after connect = %q", got)
		}
	}

	t.Run("stdio binary", func(t *testing.T) {
		cmd := exec.Command(serverBinary(t))
		check(t, connect(t, newClient(nil), &mcp.CommandTransport{Command: cmd}), modernVersion)
	})
	t.Run("stdio legacy", func(t *testing.T) {
		check(t, stdioSession(t, "--legacy"), legacyVersion)
	})
	t.Run("http stateless", func(t *testing.T) {
		url, _ := httpServer(t, "--stateless")
		check(t, connect(t, newClient(nil), &mcp.StreamableClientTransport{Endpoint: url}), modernVersion)
	})
	t.Run("http stateful", func(t *testing.T) {
		url, _ := httpServer(t)
		check(t, connect(t, newClient(nil), &mcp.StreamableClientTransport{Endpoint: url}), legacyVersion)
	})
	t.Run("http stateless legacy", func(t *testing.T) {
		url, _ := httpServer(t, "--stateless", "--legacy")
		check(t, connect(t, newClient(nil), &mcp.StreamableClientTransport{Endpoint: url}), legacyVersion)
	})
}

// rawConn speaks newline-delimited JSON-RPC to an in-process server, for
// checks the SDK client hides (exact error codes, garbage, unknown content).
type rawConn struct {
	t     *testing.T
	in    io.Writer
	lines chan string
}

func newRawConn(t *testing.T, args ...string) *rawConn {
	in, out, _ := pipeServer(t, args...)
	c := &rawConn{t: t, in: in, lines: make(chan string, 100)}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
		close(c.lines)
	}()
	return c
}

func (c *rawConn) send(msg string) {
	c.t.Helper()
	if _, err := io.WriteString(c.in, msg+"\n"); err != nil {
		c.t.Fatal(err)
	}
}

// recv returns the next line, or "" if none arrives within wait.
func (c *rawConn) recv(wait time.Duration) string {
	select {
	case line := <-c.lines:
		return line
	case <-time.After(wait):
		return ""
	}
}

const (
	rawInitialize  = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`
	rawInitialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	rawDiscover    = `{"jsonrpc":"2.0","id":7,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
)

func TestLegacyRejectsDiscover(t *testing.T) {
	c := newRawConn(t, "--legacy")
	c.send(rawDiscover)
	if got, want := c.recv(testTimeout), `{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"method not found: \"server/discover\""}}`; got != want {
		t.Errorf("discover answer:\n got %s\nwant %s", got, want)
	}
	c.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
	if got := c.recv(testTimeout); !strings.Contains(got, `"protocolVersion":"2025-11-25"`) {
		t.Errorf("initialize answer: %s", got)
	}
}

func TestUnknownContentOnTheWire(t *testing.T) {
	c := newRawConn(t)
	c.send(rawInitialize)
	c.recv(testTimeout)
	c.send(rawInitialized)
	c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"unknown-content"}}`)
	got := c.recv(testTimeout)
	if !strings.Contains(got, `"content":[{"type":"text","text":"known text"},{"type":"x-unknown","payload":"mystery"}]`) {
		t.Errorf("result: %s", got)
	}
}

func TestFaultGarbage(t *testing.T) {
	c := newRawConn(t, "--fault", "garbage")
	c.send(rawInitialize)
	for _, want := range []string{"this is not json", "neither {is this"} {
		if got := c.recv(testTimeout); got != want {
			t.Fatalf("got %q, want %q", got, want)
		}
	}
	if got := c.recv(testTimeout); !strings.Contains(got, `"protocolVersion":"2025-11-25"`) {
		t.Fatalf("initialize answer: %s", got)
	}
	c.send(rawInitialized)
	c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"still here"}}}`)
	if got := c.recv(testTimeout); !strings.Contains(got, `"text":"still here"`) {
		t.Errorf("echo answer: %s", got)
	}
}

func TestFaultHang(t *testing.T) {
	t.Run("stdio", func(t *testing.T) {
		c := newRawConn(t, "--fault", "hang")
		c.send(rawInitialize)
		if got := c.recv(300 * time.Millisecond); got != "" {
			t.Errorf("hanging server answered %s", got)
		}
	})
	t.Run("http", func(t *testing.T) {
		url, _ := httpServer(t, "--fault", "hang", "--stateless")
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		_, err := newClient(nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
		if err == nil {
			t.Errorf("connect to a hanging server succeeded")
		}
	})
}

// boundedDiscover gives server/discover its own short deadline, as a client
// must against servers that never answer it.
func boundedDiscover(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == "server/discover" {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, 200*time.Millisecond)
			defer cancel()
		}
		return next(ctx, method, req)
	}
}

func TestFaultSilentDiscover(t *testing.T) {
	t.Run("stdio", func(t *testing.T) {
		c := newRawConn(t, "--fault", "silent-discover")
		c.send(rawDiscover)
		if got := c.recv(300 * time.Millisecond); got != "" {
			t.Errorf("discover was answered: %s", got)
		}
		in, out, _ := pipeServer(t, "--fault", "silent-discover")
		client := newClient(nil)
		client.AddSendingMiddleware(boundedDiscover)
		cs := connect(t, client, &mcp.IOTransport{Reader: out, Writer: in})
		if got := cs.InitializeResult().ProtocolVersion; got != legacyVersion {
			t.Errorf("negotiated %s", got)
		}
	})
	t.Run("http", func(t *testing.T) {
		url, _ := httpServer(t, "--fault", "silent-discover", "--stateless")
		client := newClient(nil)
		client.AddSendingMiddleware(boundedDiscover)
		cs := connect(t, client, &mcp.StreamableClientTransport{Endpoint: url})
		if got := cs.InitializeResult().ProtocolVersion; got != legacyVersion {
			t.Errorf("negotiated %s", got)
		}
	})
}

func TestCancelFile(t *testing.T) {
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			cancelFile := filepath.Join(t.TempDir(), "cancelled")
			var cs *mcp.ClientSession
			if transport == "stdio" {
				cs = stdioSession(t, "--cancel-file", cancelFile)
			} else {
				url, _ := httpServer(t, "--stateless", "--cancel-file", cancelFile)
				cs = connect(t, newClient(nil), &mcp.StreamableClientTransport{Endpoint: url})
			}
			ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
			defer cancel()
			_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "sleep", Arguments: map[string]any{"ms": 10000}})
			if err == nil {
				t.Fatal("cancelled call succeeded")
			}
			waitFor(t, cancelFile, "started sleep\ncancelled sleep\n")
		})
	}
}

// waitFor waits until file holds exactly want.
func waitFor(t *testing.T, file, want string) {
	t.Helper()
	deadline := time.Now().Add(testTimeout)
	for {
		data, _ := os.ReadFile(file)
		if string(data) == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s holds %q, want %q", filepath.Base(file), data, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestCancelFileIgnoresDisconnect(t *testing.T) {
	cancelFile := filepath.Join(t.TempDir(), "cancelled")
	in, out, _ := pipeServer(t, "--cancel-file", cancelFile)
	w := bufio.NewWriter(in)
	for _, line := range []string{rawInitialize, rawInitialized,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":10000}}}`} {
		w.WriteString(line + "\n")
	}
	w.Flush()
	drained := make(chan struct{})
	go func() {
		io.Copy(io.Discard, out) // until the server has stopped
		close(drained)
	}()
	waitFor(t, cancelFile, "started sleep\n")
	in.Close()
	<-drained
	if data, err := os.ReadFile(cancelFile); err != nil || string(data) != "started sleep\n" {
		t.Errorf("cancel file after a lost connection = %q, %v; want only the start", data, err)
	}
}

func TestSleepProgress(t *testing.T) {
	var mu sync.Mutex
	var progress []float64
	client := newClient(&mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			defer mu.Unlock()
			progress = append(progress, req.Params.Progress)
		},
	})
	in, out, _ := pipeServer(t)
	cs := connect(t, client, &mcp.IOTransport{Reader: out, Writer: in})
	params := &mcp.CallToolParams{Name: "sleep", Arguments: map[string]any{"ms": 350}}
	params.SetProgressToken("tok")
	res, err := cs.CallTool(context.Background(), params)
	if err != nil {
		t.Fatal(err)
	}
	if got := onlyText(t, res); got != "slept 350 ms" {
		t.Errorf("sleep = %q", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(progress) < 2 || progress[0] != 100 {
		t.Errorf("progress = %v", progress)
	}
}

func TestFaultCrash(t *testing.T) {
	var stderr bytes.Buffer
	cmd := exec.Command(serverBinary(t), "--fault", "crash")
	cmd.Stderr = &stderr
	cs := connect(t, newClient(nil), &mcp.CommandTransport{Command: cmd})
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "x"}}); err == nil {
		t.Fatal("call to a crashing server succeeded")
	}
	cs.Close()
	if code := cmd.ProcessState.ExitCode(); code != 3 {
		t.Errorf("exit code %d, want 3", code)
	}
	if got := stderr.String(); got != "testserver: crashing\n" {
		t.Errorf("stderr = %q", got)
	}
}

func TestFaultExitOnDiscover(t *testing.T) {
	var stderr bytes.Buffer
	cmd := exec.Command(serverBinary(t), "--fault", "exit-on-discover")
	cmd.Stderr = &stderr
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	if cs, err := newClient(nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil); err == nil {
		cs.Close()
		t.Fatal("connect survived a server that dies on server/discover")
	}
	cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 1 {
		t.Errorf("exit code %d, want 1", code)
	}
	if got := stderr.String(); got != "testserver: exiting on server/discover\n" {
		t.Errorf("stderr = %q", got)
	}

	// Skipping the probe works, as a client's fallback would.
	cmd = exec.Command(serverBinary(t), "--fault", "exit-on-discover")
	cs, err := newClient(nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: legacyVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if got := cs.InitializeResult().ProtocolVersion; got != legacyVersion {
		t.Errorf("negotiated %s", got)
	}
}

func TestStartupFiles(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	_, _, stderr := pipeServer(t, "--pid-file", pidFile, "--stderr-line", "hello from the server")
	// The stderr line is written before the pid file: wait for both.
	want := fmt.Sprintf("server %d\n", os.Getpid())
	deadline := time.Now().Add(testTimeout)
	for {
		data, err := os.ReadFile(pidFile)
		if strings.Contains(stderr.String(), "hello from the server\n") && err == nil && string(data) == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("stderr = %q; pid file = %q, %v", stderr, data, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"--nope"},
		{"--fault", "explode"},
		{"--page-size", "-1"},
		{"--page-size", "two"},
		{"--stateless"},
		{"--http", "127.0.0.1:0", "--fault", "garbage"},
		{"--fault", "html-page"},
		{"extra"},
	} {
		var stderr bytes.Buffer
		code := run(context.Background(), args, streams{in: io.NopCloser(strings.NewReader("")), out: nopWriteCloser{io.Discard}, err: &stderr})
		if code != 2 || !strings.HasPrefix(stderr.String(), "testserver: error: ") {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr.String())
		}
	}
}
