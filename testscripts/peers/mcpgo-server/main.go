// Command mcpgo-server is a test fixture: a small MCP server written with
// github.com/mark3labs/mcp-go, the Go MCP library most third-party Go servers
// are built on, independent of the go-sdk that mcpc and its own test server
// use. The scripts run mcpc against it to show that mcpc works with servers
// it did not grow up with. Only this fixture imports mcp-go; mcpc does not.
//
// It offers two tools (echo, with an argument, and fail, which answers with
// a tool error), a text resource and a prompt with an argument, on one of
// the three transports mcp-go serves:
//
//	mcpgo-server [--request-log FILE] [--tools-only]        stdio
//	mcpgo-server --transport http --url-file FILE [...]    Streamable HTTP, endpoint /mcp
//	mcpgo-server --transport sse --url-file FILE [...]     the 2024-11-05 HTTP+SSE transport, GET /sse
//
// Over HTTP it listens on --addr (default 127.0.0.1:0, any free loopback
// port) and writes its URL to --url-file once listening, as the in-repo test
// server does. --request-log appends one line per JSON-RPC message received:
// its method, or "response" for an answer to a request of the server's; over
// HTTP the line starts with the HTTP method, and a request without a JSON-RPC
// body logs only the HTTP method ("GET").
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:]); err != nil {
		fmt.Fprintf(os.Stderr, "mcpgo-server: error: %v\n", err)
		os.Exit(1)
	}
}

// run serves until ctx is done (or, on stdio, stdin ends).
func run(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("mcpgo-server", flag.ContinueOnError)
	transport := fs.String("transport", "stdio", "stdio, http (Streamable HTTP) or sse (HTTP+SSE)")
	addr := fs.String("addr", "127.0.0.1:0", "with http or sse: where to listen")
	urlFile := fs.String("url-file", "", "with http or sse: write the server's URL here once listening")
	requestLog := fs.String("request-log", "", "append one line per JSON-RPC message received")
	toolsOnly := fs.Bool("tools-only", false, "declare and serve tools only: no resources, no prompts")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	log := &messageLog{path: *requestLog}
	s := newServer(*toolsOnly)
	switch *transport {
	case "stdio":
		if *urlFile != "" {
			return errors.New("--url-file needs --transport http or sse")
		}
		return serveStdio(ctx, s, log)
	case "http":
		return serveHTTP(ctx, *addr, "/mcp", *urlFile, log, server.NewStreamableHTTPServer(s))
	case "sse":
		// The endpoint event names the message endpoint by path: the
		// client resolves it against the URL it connected to.
		return serveHTTP(ctx, *addr, "/sse", *urlFile, log, server.NewSSEServer(s))
	default:
		return fmt.Errorf("unknown --transport %q (want stdio, http or sse)", *transport)
	}
}

// newServer is the fixture's server; toolsOnly leaves out the resource
// and the prompt and their capabilities, as many servers written elsewhere
// declare tools alone (server-filesystem, Playwright MCP, ...).
func newServer(toolsOnly bool) *server.MCPServer {
	opts := []server.ServerOption{server.WithToolCapabilities(false), server.WithInstructions("mark3labs/mcp-go fixture for mcpc tests.")}
	if !toolsOnly {
		opts = append(opts, server.WithResourceCapabilities(false, false), server.WithPromptCapabilities(false))
	}
	s := server.NewMCPServer("mcpgo-fixture", "1.0.0", opts...)
	s.AddTool(mcp.NewTool("echo",
		mcp.WithDescription("Echoes the text back"),
		mcp.WithString("text", mcp.Required(), mcp.Description("What to echo")),
		mcp.WithNumber("times", mcp.Description("How many times"), mcp.DefaultNumber(1)),
	), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		text, err := req.RequireString("text")
		if err != nil {
			return mcp.NewToolResultError(err.Error()), nil
		}
		n := int(req.GetFloat("times", 1))
		if n < 1 || n > 10 {
			return mcp.NewToolResultErrorf("times must be between 1 and 10, not %d", n), nil
		}
		return mcp.NewToolResultText(strings.TrimSuffix(strings.Repeat(text+" ", n), " ")), nil
	})
	s.AddTool(mcp.NewTool("fail",
		mcp.WithDescription("Always answers with a tool error"),
	), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultError("the fail tool always fails"), nil
	})
	if toolsOnly {
		return s
	}
	s.AddResource(mcp.NewResource("mcpgo://fixture/greeting", "greeting",
		mcp.WithResourceDescription("A fixed greeting"),
		mcp.WithMIMEType("text/plain"),
	), func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		return []mcp.ResourceContents{mcp.TextResourceContents{
			URI: req.Params.URI, MIMEType: "text/plain", Text: "hello from mcp-go",
		}}, nil
	})
	s.AddPrompt(mcp.NewPrompt("greet",
		mcp.WithPromptDescription("Asks for a greeting"),
		mcp.WithArgument("name", mcp.RequiredArgument(), mcp.ArgumentDescription("Who to greet")),
	), func(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return mcp.NewGetPromptResult("A greeting", []mcp.PromptMessage{
			mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent("Say hello to "+req.Params.Arguments["name"]+".")),
		}), nil
	})
	return s
}

// serveStdio serves s on stdin and stdout until stdin ends or a signal
// comes; what arrives is logged line by line on its way to the server.
func serveStdio(ctx context.Context, s *server.MCPServer, log *messageLog) error {
	in := io.Reader(os.Stdin)
	if log.path != "" {
		pr, pw := io.Pipe()
		go func() {
			r := bufio.NewReader(os.Stdin)
			for {
				line, err := r.ReadBytes('\n')
				if len(line) > 0 {
					log.messages("", line)
					if _, werr := pw.Write(line); werr != nil {
						return
					}
				}
				if err != nil {
					pw.CloseWithError(err)
					return
				}
			}
		}()
		in = pr
	}
	err := server.NewStdioServer(s).Listen(ctx, in, os.Stdout)
	if err == nil || errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// serveHTTP serves h on a loopback listener until a signal comes; path is
// the endpoint the URL it reports names.
func serveHTTP(ctx context.Context, addr, path, urlFile string, log *messageLog, h http.Handler) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	var root = h
	if log.path != "" {
		root = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			var body []byte
			if r.Body != nil {
				body, _ = io.ReadAll(r.Body)
				r.Body = io.NopCloser(bytes.NewReader(body))
			}
			log.messages(r.Method, body)
			h.ServeHTTP(w, r)
		})
	}
	// Handlers get a context cancelled at shutdown: the long-lived SSE
	// streams would otherwise hold Shutdown until its deadline.
	base, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv := &http.Server{
		Handler:           root,
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return base },
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	url := "http://" + ln.Addr().String() + path
	if urlFile != "" {
		// Written whole or not at all: the harness polls for it.
		tmp := filepath.Join(filepath.Dir(urlFile), "."+filepath.Base(urlFile)+".tmp")
		if err := os.WriteFile(tmp, []byte(url+"\n"), 0o644); err != nil {
			srv.Close()
			return err
		}
		if err := os.Rename(tmp, urlFile); err != nil {
			srv.Close()
			return err
		}
	}
	fmt.Fprintf(os.Stderr, "mcpgo-server: listening on %s\n", url)
	select {
	case <-ctx.Done():
	case err := <-served:
		return err
	}
	cancel()
	shutdown, done := context.WithTimeout(context.Background(), 5*time.Second)
	defer done()
	if err := srv.Shutdown(shutdown); err != nil {
		srv.Close()
	}
	return nil
}

// messageLog appends a line per JSON-RPC message to path (if set).
type messageLog struct {
	path string
	mu   sync.Mutex
}

// messages logs the JSON-RPC messages in body (one, or a batch), each line
// prefixed with prefix (the HTTP method) when there is one.
func (l *messageLog) messages(prefix string, body []byte) {
	if l.path == "" {
		return
	}
	var methods []string
	var batch []json.RawMessage
	body = bytes.TrimSpace(body)
	if len(body) > 0 && body[0] == '[' {
		json.Unmarshal(body, &batch)
	} else if len(body) > 0 {
		batch = []json.RawMessage{body}
	}
	for _, m := range batch {
		var msg struct {
			Method string `json:"method"`
		}
		json.Unmarshal(m, &msg)
		if msg.Method == "" {
			msg.Method = "response"
		}
		methods = append(methods, strings.TrimSpace(prefix+" "+msg.Method))
	}
	if len(methods) == 0 {
		methods = []string{prefix}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	f, err := os.OpenFile(l.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		fmt.Fprintf(os.Stderr, "mcpgo-server: request log: %v\n", err)
		return
	}
	defer f.Close()
	fmt.Fprintln(f, strings.Join(methods, "\n"))
}
