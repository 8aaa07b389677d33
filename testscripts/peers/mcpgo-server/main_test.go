package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// TestSSE checks the fixture's HTTP+SSE mode with mcp-go's own client, so
// that a script failing against it points at mcpc, not at the fixture.
func TestSSE(t *testing.T) {
	dir := t.TempDir()
	urlFile, logFile := filepath.Join(dir, "url"), filepath.Join(dir, "log")
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() {
		served <- run(ctx, []string{"--transport", "sse", "--url-file", urlFile, "--request-log", logFile})
	}()
	defer func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("run: %v", err)
		}
	}()
	var url string
	for deadline := time.Now().Add(10 * time.Second); url == ""; time.Sleep(10 * time.Millisecond) {
		if b, err := os.ReadFile(urlFile); err == nil {
			url = strings.TrimSpace(string(b))
		} else if time.Now().After(deadline) {
			t.Fatal("no URL written")
		}
	}
	if !strings.HasSuffix(url, "/sse") {
		t.Fatalf("URL %q, want one ending in /sse", url)
	}
	c, err := client.NewSSEMCPClient(url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.ProtocolVersion20241105
	init.Params.ClientInfo = mcp.Implementation{Name: "test", Version: "0"}
	res, err := c.Initialize(ctx, init)
	if err != nil {
		t.Fatal(err)
	}
	if res.ServerInfo.Name != "mcpgo-fixture" {
		t.Errorf("server %q, want mcpgo-fixture", res.ServerInfo.Name)
	}
	call := mcp.CallToolRequest{}
	call.Params.Name = "echo"
	call.Params.Arguments = map[string]any{"text": "hi", "times": 2}
	out, err := c.CallTool(ctx, call)
	if err != nil {
		t.Fatal(err)
	}
	if text := out.Content[0].(mcp.TextContent).Text; out.IsError || text != "hi hi" {
		t.Errorf("echo: isError %v, text %q; want false, \"hi hi\"", out.IsError, text)
	}
	call.Params.Name, call.Params.Arguments = "fail", nil
	if out, err = c.CallTool(ctx, call); err != nil || !out.IsError {
		t.Errorf("fail: isError %v, err %v; want true, nil", out != nil && out.IsError, err)
	}
	b, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	want := "GET\nPOST initialize\nPOST notifications/initialized\nPOST tools/call\nPOST tools/call\n"
	if string(b) != want {
		t.Errorf("request log:\n%s\nwant:\n%s", b, want)
	}
}
