package testserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const (
	itemCount      = 5 // test://static/item-N, enough for several pages at --page-size 2
	itemTemplate   = "test://items/{id}"
	itemURIPrefix  = "test://items/"
	plainPromptMsg = "This is a prompt without arguments."
	// The MCP Apps view of the app-view tool, and the MIME type the
	// extension gives it. The HTML carries a terminal escape: mcpc prints
	// it as text, never renders it, and a server's text is never trusted.
	appViewURI  = "ui://testserver/app-view.html"
	appViewMIME = "text/html;profile=mcp-app"
	appViewHTML = "<!DOCTYPE html>\n<html><body><h1>\x1b[31mApp view\x1b[0m</h1></body></html>\n"
)

// staticResource is a fixed resource with text or blob contents.
type staticResource struct {
	uri, name, mimeType, text string
	blob                      []byte
}

func addResources(s *mcp.Server) {
	static := []staticResource{
		{uri: "test://static/hello", name: "hello", mimeType: "text/plain", text: "hello resource\n"},
		{uri: "test://static/data.json", name: "data.json", mimeType: "application/json", text: `{"k":1}`},
		{uri: "test://static/blob", name: "blob", mimeType: "application/octet-stream", blob: []byte{0x00, 0x01, 0x02}},
		{uri: appViewURI, name: "app-view.html", mimeType: appViewMIME, text: appViewHTML},
	}
	for i := 1; i <= itemCount; i++ {
		name := fmt.Sprintf("item-%d", i)
		static = append(static, staticResource{uri: "test://static/" + name, name: name, mimeType: "text/plain", text: name + "\n"})
	}
	for _, r := range static {
		s.AddResource(&mcp.Resource{URI: r.uri, Name: r.name, MIMEType: r.mimeType},
			func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{
					URI: r.uri, MIMEType: r.mimeType, Text: r.text, Blob: r.blob,
				}}}, nil
			})
	}

	s.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: itemTemplate,
		Name:        "item",
		Description: "An item by id.",
		MIMEType:    "text/plain",
	}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		uri := req.Params.URI
		id, ok := strings.CutPrefix(uri, itemURIPrefix)
		if !ok || id == "" {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{
			URI: uri, MIMEType: "text/plain", Text: "item " + id,
		}}}, nil
	})
}

func addPrompts(s *mcp.Server) {
	s.AddPrompt(&mcp.Prompt{
		Name:        "greet",
		Title:       "Greet",
		Description: "Greet someone by name.",
		Arguments:   []*mcp.PromptArgument{{Name: "name", Description: "who to greet", Required: true}},
	}, func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		name, ok := req.Params.Arguments["name"]
		if !ok {
			// The SDK does not check required prompt arguments.
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: `missing required argument "name"`}
		}
		return &mcp.GetPromptResult{
			Description: "A greeting.",
			Messages:    []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "Hello, " + name + "!"}}},
		}, nil
	})

	s.AddPrompt(&mcp.Prompt{
		Name:        "plain",
		Description: "A prompt without arguments",
	}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{
			Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: plainPromptMsg}}},
		}, nil
	})
}
