package testserver

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Outputs pinned by tests.
const (
	echoDescription = "Echo the text back.\nSecond line of description."
	escapeText      = "\x1b[31mred\x1b[0m \x1b]0;evil title\x07ok\u009b2J \u202edesrever\u202c end\r\nnext line"
	hugeLineLen     = 64
	shellyName      = `"it's" $HOME *`
	progressEvery   = 100 * time.Millisecond
)

// Bounds that keep a mistyped test from exhausting memory.
const (
	maxRepeat    = 10000
	maxImages    = 64
	maxImageSize = 16 << 20
	// Room for the 60 MiB result bench/run measures; past line 999999 the
	// numbers grow a digit and the lines stay 64 bytes.
	maxHugeBytes = 64 << 20
	// Room for the million content items bench/run measures.
	maxManyItems = 1 << 20
	maxSleepMs   = 10 * 60 * 1000
)

// tinyPNG is a valid 1x1 PNG; image payloads start with it so that they can
// be opened, and are padded with zero bytes (or cut) to the requested size.
var tinyPNG = mustBase64("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=")

// toolEnv is what tool handlers need from the command line.
type toolEnv struct {
	cancelFile string
	// drift (--drift) serves the next version of these tools, for the
	// schema-drift tests: no huge tool, echo's repeat required, image
	// retitled.
	drift bool
	// hugeEscapes (--huge-escapes) colours the huge tool's line numbers, so
	// that text mode has a large text to strip.
	hugeEscapes bool
	// branchy (--branchy) adds the branchy tool, whose schemas make a
	// check branch exponentially.
	branchy bool
	// hints (--hints) annotates echo and add readOnlyHint: true, for
	// serve's --read-only; the other tools have no annotations.
	hints bool
}

// readOnly is the annotations of a read-only tool, under --hints.
func (e *toolEnv) readOnly() *mcp.ToolAnnotations {
	if !e.hints {
		return nil
	}
	return &mcp.ToolAnnotations{ReadOnlyHint: true}
}

type echoIn struct {
	Text   string `json:"text" jsonschema:"text to echo back"`
	Repeat int    `json:"repeat,omitempty" jsonschema:"how many times to repeat the text"`
}

type addIn struct {
	A float64 `json:"a" jsonschema:"first addend"`
	B float64 `json:"b" jsonschema:"second addend"`
}

type addOut struct {
	Sum float64 `json:"sum" jsonschema:"a + b"`
}

type imageIn struct {
	Count int `json:"count,omitempty" jsonschema:"number of images"`
	Size  int `json:"size,omitempty" jsonschema:"bytes in each image payload"`
}

type hugeIn struct {
	Bytes int `json:"bytes" jsonschema:"exact size of the text in bytes"`
}

type manyIn struct {
	Count int `json:"count" jsonschema:"number of text items"`
}

type failIn struct {
	Message string `json:"message,omitempty" jsonschema:"error message"`
}

type sleepIn struct {
	Ms int `json:"ms" jsonschema:"milliseconds to sleep"`
}

type typesIn struct {
	S   string         `json:"s" jsonschema:"a string"`
	N   int64          `json:"n,omitempty" jsonschema:"an integer"`
	B   bool           `json:"b,omitempty" jsonschema:"a boolean"`
	Arr []string       `json:"arr,omitempty" jsonschema:"an array of strings"`
	Obj map[string]any `json:"obj,omitempty" jsonschema:"an object"`
}

type noIn struct{}

func addTools(s *mcp.Server, env *toolEnv) {
	addBasicTools(s, env)
	addPayloadTools(s, env)
	addBehaviourTools(s, env)
	addAppTools(s)
	addRawTools(s)
	addAwkwardTools(s)
	addContentTools(s)
	if env.branchy {
		addBranchy(s)
	}
}

// addBasicTools adds echo and add, the tools most tests call.
func addBasicTools(s *mcp.Server, env *toolEnv) {
	mcp.AddTool(s, &mcp.Tool{
		Name:        "echo",
		Title:       "Echo",
		Description: echoDescription,
		Annotations: env.readOnly(),
		InputSchema: schemaFor[echoIn](func(sc *jsonschema.Schema) {
			setRange(sc.Properties["repeat"], 0, maxRepeat)
			setDefault(sc.Properties["repeat"], 1)
			if env.drift {
				sc.Required = append(sc.Required, "repeat")
			}
		}),
	}, func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
		return textResult(strings.Repeat(in.Text, in.Repeat)), nil, nil
	})

	mcp.AddTool(s, &mcp.Tool{
		Name:        "add",
		Title:       "Add numbers",
		Description: "Add two numbers; the sum comes back as structured content.",
		Annotations: env.readOnly(),
	}, func(_ context.Context, _ *mcp.CallToolRequest, in addIn) (*mcp.CallToolResult, addOut, error) {
		return nil, addOut{Sum: in.A + in.B}, nil
	})
}

// addPayloadTools adds the tools whose results are large or hostile:
// images, huge text, many items, terminal escapes.
func addPayloadTools(s *mcp.Server, env *toolEnv) {
	imageTitle := "Images"
	if env.drift {
		imageTitle = "PNG images"
	}
	mcp.AddTool(s, &mcp.Tool{
		Name:        "image",
		Title:       imageTitle,
		Description: "Return count PNG images of size bytes each.",
		InputSchema: schemaFor[imageIn](func(sc *jsonschema.Schema) {
			setRange(sc.Properties["count"], 0, maxImages)
			setDefault(sc.Properties["count"], 1)
			setRange(sc.Properties["size"], 0, maxImageSize)
			setDefault(sc.Properties["size"], 100)
		}),
	}, func(_ context.Context, _ *mcp.CallToolRequest, in imageIn) (*mcp.CallToolResult, any, error) {
		res := &mcp.CallToolResult{Content: []mcp.Content{}}
		for range in.Count {
			res.Content = append(res.Content, &mcp.ImageContent{Data: imageBytes(in.Size), MIMEType: "image/png"})
		}
		return res, nil, nil
	})

	mcp.AddTool(s, &mcp.Tool{
		Name:        "huge",
		Title:       "Huge text",
		Description: "Return exactly bytes bytes of numbered 64-byte lines.",
		InputSchema: schemaFor[hugeIn](func(sc *jsonschema.Schema) {
			setRange(sc.Properties["bytes"], 0, maxHugeBytes)
		}),
	}, func(_ context.Context, _ *mcp.CallToolRequest, in hugeIn) (*mcp.CallToolResult, any, error) {
		return textResult(hugeText(in.Bytes, env.hugeEscapes)), nil, nil
	})

	mcp.AddTool(s, &mcp.Tool{
		Name:        "many",
		Title:       "Many items",
		Description: "Return count text items, \"item 1\" to \"item count\".",
		InputSchema: schemaFor[manyIn](func(sc *jsonschema.Schema) {
			setRange(sc.Properties["count"], 0, maxManyItems)
		}),
	}, func(_ context.Context, _ *mcp.CallToolRequest, in manyIn) (*mcp.CallToolResult, any, error) {
		res := &mcp.CallToolResult{Content: make([]mcp.Content, in.Count)}
		for i := range in.Count {
			res.Content[i] = &mcp.TextContent{Text: "item " + strconv.Itoa(i+1)}
		}
		return res, nil, nil
	})

	mcp.AddTool(s, &mcp.Tool{
		Name:        "escape",
		Title:       "Terminal escapes",
		Description: "Return text full of terminal escape and bidi control sequences.",
	}, func(context.Context, *mcp.CallToolRequest, noIn) (*mcp.CallToolResult, any, error) {
		return textResult(escapeText), nil, nil
	})
}

// addBehaviourTools adds the tools that fail, take time, or say what
// arguments arrived.
func addBehaviourTools(s *mcp.Server, env *toolEnv) {
	mcp.AddTool(s, &mcp.Tool{
		Name:        "fail",
		Title:       "Fail",
		Description: "Report a tool error (isError: true).",
		InputSchema: schemaFor[failIn](func(sc *jsonschema.Schema) {
			setDefault(sc.Properties["message"], "boom")
		}),
	}, func(_ context.Context, _ *mcp.CallToolRequest, in failIn) (*mcp.CallToolResult, any, error) {
		res := textResult("failed: " + in.Message)
		res.IsError = true
		return res, nil, nil
	})

	mcp.AddTool(s, &mcp.Tool{
		Name:        "sleep",
		Title:       "Sleep",
		Description: "Wait ms milliseconds, reporting progress every 100 ms when asked to.",
		InputSchema: schemaFor[sleepIn](func(sc *jsonschema.Schema) {
			setRange(sc.Properties["ms"], 0, maxSleepMs)
		}),
	}, env.sleep)

	mcp.AddTool(s, &mcp.Tool{
		Name:        "types",
		Title:       "Argument types",
		Description: "Return the arguments as received, for argument parsing tests.",
		InputSchema: schemaFor[typesIn](func(sc *jsonschema.Schema) {
			// The inferred ["null","array"] is a Go nil-slice artefact.
			sc.Properties["arr"].Types = nil
			sc.Properties["arr"].Type = "array"
		}),
	}, func(_ context.Context, req *mcp.CallToolRequest, _ typesIn) (*mcp.CallToolResult, any, error) {
		// Echo what arrived rather than the decoded struct, so that zero
		// values and number spellings survive.
		dec := json.NewDecoder(bytes.NewReader(req.Params.Arguments))
		dec.UseNumber()
		var args map[string]any
		if err := dec.Decode(&args); err != nil {
			return nil, nil, err
		}
		return nil, args, nil
	})
}

// addAppTools adds the MCP Apps tools.
func addAppTools(s *mcp.Server) {
	mcp.AddTool(s, &mcp.Tool{
		Name:        "app-only",
		Title:       "App only",
		Description: "An MCP Apps tool that hosts must not offer to a model.",
		Meta:        mcp.Meta{"ui": map[string]any{"visibility": []string{"app"}}},
	}, func(context.Context, *mcp.CallToolRequest, noIn) (*mcp.CallToolResult, any, error) {
		return textResult("app"), nil, nil
	})

	// An MCP Apps tool a model may call too: its UI resource under the
	// current key and the deprecated flat one, as the ext-apps SDK sends
	// both.
	mcp.AddTool(s, &mcp.Tool{
		Name:        "app-view",
		Title:       "App view",
		Description: "An MCP Apps tool with a UI resource, which hosts render.",
		Meta: mcp.Meta{
			"ui":             map[string]any{"resourceUri": appViewURI, "visibility": []string{"model", "app"}},
			"ui/resourceUri": appViewURI,
		},
	}, func(context.Context, *mcp.CallToolRequest, noIn) (*mcp.CallToolResult, any, error) {
		return textResult("viewed"), nil, nil
	})
}

// addRawTools adds tools with raw handlers, whose schemas the SDK
// neither infers nor checks against what they return.
func addRawTools(s *mcp.Server) {
	// A raw handler: the SDK checks typed tools' output, and this tool's
	// output is wrong on purpose.
	s.AddTool(&mcp.Tool{
		Name:        "bad-output",
		Description: "Return structuredContent that does not match the outputSchema.",
		InputSchema: map[string]any{"type": "object"},
		OutputSchema: map[string]any{"type": "object", "required": []any{"n"},
			"properties": map[string]any{"n": map[string]any{"type": "integer"}}},
	}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{
			Content:           []mcp.Content{&mcp.TextContent{Text: `{"n":"seven"}`}},
			StructuredContent: map[string]any{"n": "seven"},
		}, nil
	})

	// A 2026-07-28 HTTP client must mirror "region" as Mcp-Param-Region;
	// the SDK's server refuses the call (-32020) when it does not.
	s.AddTool(&mcp.Tool{
		Name:        "region",
		Description: "Echo the region argument, which travels in an Mcp-Param-Region header too.",
		InputSchema: map[string]any{"type": "object", "required": []any{"region"},
			"properties": map[string]any{"region": map[string]any{"type": "string", "x-mcp-header": "Region"}}},
	}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in struct{ Region string }
		json.Unmarshal(req.Params.Arguments, &in)
		return textResult("region " + in.Region), nil
	})

	// A schema mcpc must not follow (a network $ref): its arguments go
	// unchecked, with a note.
	s.AddTool(&mcp.Tool{
		Name:        "remote-ref",
		Description: "Take an argument whose schema is a network $ref.",
		InputSchema: map[string]any{"type": "object",
			"properties": map[string]any{"x": map[string]any{"$ref": "https://schemas.example/x.json"}}},
	}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return textResult("ok"), nil
	})
}

// addAwkwardTools adds a tool whose schema refers back to itself and one
// whose name and argument a shell would mangle.
func addAwkwardTools(s *mcp.Server) {
	// A schema that refers back to itself without descending into the
	// value, for its input and its output: a validator following it never
	// ends. mcpc leaves the arguments to this server, which wants x to be
	// a string.
	loop := map[string]any{"type": "object", "properties": map[string]any{"x": map[string]any{
		"anyOf": []any{map[string]any{"type": "string"}, map[string]any{"$ref": "#/properties/x"}}}}}
	s.AddTool(&mcp.Tool{
		Name:         "self-ref",
		Description:  "Take an argument x whose schema refers back to itself.",
		InputSchema:  loop,
		OutputSchema: loop,
	}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in struct{ X any }
		json.Unmarshal(req.Params.Arguments, &in)
		x, ok := in.X.(string)
		if !ok {
			res := textResult(fmt.Sprintf("x must be a string, not %v", in.X))
			res.IsError = true
			return res, nil
		}
		res := textResult("x is " + x)
		res.StructuredContent = map[string]any{"x": x}
		return res, nil
	})

	// A name and an argument that a shell splits, quotes and expands
	// unless they are quoted right: printed command lines must survive it.
	s.AddTool(&mcp.Tool{
		Name:        shellyName,
		Description: "Say which tool was called, with which arguments.",
		InputSchema: map[string]any{"type": "object", "required": []any{"a b"},
			"properties": map[string]any{"a b": map[string]any{"type": "string"}}},
	}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return textResult(req.Params.Name + " got " + string(req.Params.Arguments)), nil
	})
}

// addContentTools adds the tools that return every content kind and an
// unknown one.
func addContentTools(s *mcp.Server) {
	mcp.AddTool(s, &mcp.Tool{
		Name:        "kinds",
		Title:       "Every content kind",
		Description: "Return one content item of each kind, annotations and _meta included.",
	}, func(context.Context, *mcp.CallToolRequest, noIn) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{
			Meta: mcp.Meta{"x-extra": map[string]any{"n": 1}},
			Content: []mcp.Content{
				&mcp.TextContent{Text: "plain", Annotations: &mcp.Annotations{Audience: []mcp.Role{"user"}, Priority: 0.5}},
				&mcp.ImageContent{Data: []byte{0x89, 'P', 'N', 'G'}, MIMEType: "image/png"},
				&mcp.AudioContent{Data: []byte("RIFF"), MIMEType: "audio/wav"},
				&mcp.ResourceLink{URI: "test://static/hello", Name: "hello", MIMEType: "text/plain"},
				&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "test://static/data.json", MIMEType: "application/json", Text: `{"k":1}`}},
				&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "test://static/blob", MIMEType: "application/octet-stream", Blob: []byte{0, 1, 2}}},
			},
			StructuredContent: map[string]any{"z": 1, "a": []any{true, nil, 2.5}},
		}, nil, nil
	})

	mcp.AddTool(s, &mcp.Tool{
		Name:        "unknown-content",
		Title:       "Unknown content",
		Description: "Return a text item followed by an item of a content type no client knows.",
	}, func(context.Context, *mcp.CallToolRequest, noIn) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.TextContent{Text: "known text"},
			unknownContent{},
		}}, nil, nil
	})
}

// addBranchy adds the branchy tool.
func addBranchy(s *mcp.Server) {
	// Schemas whose checks branch exponentially: 30 definitions, each
	// applying the next twice through anyOf, 2^30 checks of one value from
	// 1 KB of schema. mcpc counts the work first and skips both checks
	// with a note; this server does not validate.
	branchy := func() map[string]any {
		defs := map[string]any{"d30": map[string]any{"type": "string"}}
		for i := range 30 {
			next := map[string]any{"$ref": fmt.Sprintf("#/$defs/d%d", i+1)}
			defs[fmt.Sprintf("d%d", i)] = map[string]any{"anyOf": []any{next, next}}
		}
		return map[string]any{"type": "object", "$defs": defs, "properties": map[string]any{"x": map[string]any{"$ref": "#/$defs/d0"}}}
	}
	// The inputSchema's "pad" nests 900 levels: within what mcpc
	// decodes, but slow to decode (about half a second), which gives a
	// signal time to arrive while mcpc works on the schema alone.
	in := branchy()
	pad := map[string]any{"type": "string"}
	for range 900 {
		pad = map[string]any{"type": "array", "items": pad}
	}
	in["properties"].(map[string]any)["pad"] = pad
	s.AddTool(&mcp.Tool{
		Name:         "branchy",
		Description:  "Take an argument x, and return it, under schemas whose checks branch exponentially.",
		InputSchema:  in,
		OutputSchema: branchy(),
	}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in struct{ X any }
		json.Unmarshal(req.Params.Arguments, &in)
		res := textResult(fmt.Sprintf("x is %v", in.X))
		res.StructuredContent = map[string]any{"x": in.X}
		return res, nil
	})
}

func (env *toolEnv) sleep(ctx context.Context, req *mcp.CallToolRequest, in sleepIn) (*mcp.CallToolResult, any, error) {
	total := time.Duration(in.Ms) * time.Millisecond
	done := time.NewTimer(total)
	defer done.Stop()
	tick := time.NewTicker(progressEvery)
	defer tick.Stop()
	token := req.Params.GetProgressToken()
	if env.cancelFile != "" {
		// Lets a test wait until the call is in flight before interrupting.
		appendLine(env.cancelFile, "started "+req.Params.Name)
	}
	var elapsed time.Duration
	for {
		select {
		case <-done.C:
			return textResult(fmt.Sprintf("slept %d ms", in.Ms)), nil, nil
		case <-tick.C:
			elapsed = min(elapsed+progressEvery, total)
			if token != nil {
				req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
					ProgressToken: token,
					Progress:      float64(elapsed.Milliseconds()),
					Total:         float64(in.Ms),
					Message:       fmt.Sprintf("slept %d of %d ms", elapsed.Milliseconds(), in.Ms),
				})
			}
		case <-ctx.Done():
			// Only a cancellation by the client counts (notifications/cancelled
			// on stdio, a closed request stream over 2026-07-28 HTTP): the SDK
			// cancels with a distinct cause when the connection is lost, and so
			// does our HTTP shutdown, and the file must prove the former.
			if env.cancelFile != "" && errors.Is(context.Cause(ctx), context.Canceled) {
				appendLine(env.cancelFile, "cancelled "+req.Params.Name)
			}
			return nil, nil, ctx.Err()
		}
	}
}

// unknownContent is a content item of a type that is not in any MCP
// revision. The SDK's Content interface is sealed by an unexported method;
// embedding a real content type supplies it, and MarshalJSON decides the
// wire form.
type unknownContent struct{ *mcp.TextContent }

func (unknownContent) MarshalJSON() ([]byte, error) {
	return []byte(`{"type":"x-unknown","payload":"mystery"}`), nil
}

func textResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

// hugeText returns n bytes of lines like "line 000001 xxx…x\n", each 64
// bytes; the last line is cut to fit. With escapes the number is coloured
// ("\x1b[1mline 000001\x1b[0m xxx…x\n", 64 bytes still).
func hugeText(n int, escapes bool) string {
	var b strings.Builder
	b.Grow(n + hugeLineLen)
	for i := 1; b.Len() < n; i++ {
		prefix := fmt.Sprintf("line %06d ", i)
		if escapes {
			prefix = fmt.Sprintf("\x1b[1mline %06d\x1b[0m ", i)
		}
		b.WriteString(prefix)
		b.WriteString(strings.Repeat("x", hugeLineLen-len(prefix)-1))
		b.WriteByte('\n')
	}
	return b.String()[:n]
}

func imageBytes(size int) []byte {
	data := make([]byte, size)
	copy(data, tinyPNG)
	return data
}

// schemaFor infers T's input schema as AddTool would, then lets the caller
// add what struct tags cannot express (defaults, bounds).
func schemaFor[T any](adjust func(*jsonschema.Schema)) *jsonschema.Schema {
	sc, err := jsonschema.For[T](nil)
	if err != nil {
		panic(err)
	}
	adjust(sc)
	return sc
}

func setDefault(sc *jsonschema.Schema, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	sc.Default = data
}

func setRange(sc *jsonschema.Schema, lo, hi float64) {
	sc.Minimum = &lo
	sc.Maximum = &hi
}

func mustBase64(s string) []byte {
	data, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return data
}

// addCounterTool serves incr (--counter): each call returns the next
// value of a counter that lives in the server's memory, one per MCP
// session, so a client that keeps one server (over HTTP: one session)
// across calls sees 1, 2, 3 and one that starts a server (or a session)
// per call sees 1, 1, 1.
func addCounterTool(s *mcp.Server) {
	var mu sync.Mutex
	counts := map[*mcp.ServerSession]int64{}
	s.AddTool(&mcp.Tool{
		Name:        "incr",
		Description: "Add one to the server's counter and return it.",
		InputSchema: &jsonschema.Schema{Type: "object"},
	}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		mu.Lock()
		counts[req.Session]++
		n := counts[req.Session]
		mu.Unlock()
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strconv.FormatInt(n, 10)}}}, nil
	})
	addGrowTool(s)
}

// addSecretsTool serves secrets (--echo-env VAR): it quotes what reached
// the server that a client of mcpc's must never see (the variable, from
// the entry's "env"; the Authorization and X-Token headers, from its
// bearer and "headers"), in its result or, with as=error, in a JSON-RPC
// error's message.
func addSecretsTool(s *mcp.Server, name string) {
	s.AddTool(&mcp.Tool{
		Name:        "secrets",
		Description: "Quote the server's secrets back: its " + name + " variable and the request's credentials.",
		InputSchema: &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"as": {Type: "string", Enum: []any{"result", "error"}}}},
	}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var h http.Header
		if req.Extra != nil {
			h = req.Extra.Header
		}
		text := fmt.Sprintf("%s=%s authorization=%s x-token=%s", name, os.Getenv(name), h.Get("Authorization"), h.Get("X-Token"))
		var in struct{ As string }
		json.Unmarshal(req.Params.Arguments, &in)
		if in.As == "error" {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "cannot serve " + text}
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, StructuredContent: map[string]any{"quoted": text}}, nil
	})
}

// addGrowTool serves grow (--counter): each call adds a tool grown-N to
// the server's list, which the server tells its clients of
// (notifications/tools/list_changed) before it answers, so that a
// client's next list is known to follow the change. (The SDK sends the
// notification on a timer; a client it does not tell, a 2026-07-28 one
// without a subscription, waits a second for nothing.)
func addGrowTool(s *mcp.Server) {
	told := make(chan struct{}, 1)
	s.AddSendingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if method == "notifications/tools/list_changed" {
				select {
				case told <- struct{}{}:
				default:
				}
			}
			return res, err
		}
	})
	var grown atomic.Int64
	s.AddTool(&mcp.Tool{
		Name:        "grow",
		Description: "Add a tool grown-N to the server's list and tell of the change.",
		InputSchema: &jsonschema.Schema{Type: "object"},
	}, func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		name := fmt.Sprintf("grown-%d", grown.Add(1))
		s.AddTool(&mcp.Tool{Name: name, Description: "Added by grow.", InputSchema: &jsonschema.Schema{Type: "object"}},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: name}}}, nil
			})
		select {
		case <-told:
		case <-time.After(time.Second):
		case <-ctx.Done():
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: name}}}, nil
	})
}
