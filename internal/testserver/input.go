//lint:file-ignore SA1019 the deprecated logging and roots features are what these tools exercise

package testserver

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tools that ask the client for input. On a 2026-07-28 session they answer
// input_required (SEP-2322 multi-round-trip); on older sessions the SDK
// turns the same results into elicitation/create requests.

type askIn struct {
	Rounds int `json:"rounds,omitempty" jsonschema:"how many rounds of questions (default 2)"`
}

type urlFirstIn struct {
	Complete bool `json:"complete,omitempty" jsonschema:"say when the URL was visited (notifications/elicitation/complete)"`
}

// urlAsked says the ask-url-first tool has sent its URL (one client per
// stdio process, so per process is per client).
var urlAsked atomic.Bool

type busyIn struct {
	Times int `json:"times" jsonschema:"how many times to answer busy before the result (-1: for ever)"`
}

type unofferedIn struct {
	What string `json:"what" jsonschema:"roots or sampling"`
}

type logIn struct {
	Message string `json:"message" jsonschema:"text of the log messages"`
}

// askState is what the ask tool keeps between rounds, in the requestState
// it hands the client. Its seal makes a state that was changed on the way
// back visible; the odd characters check that it is echoed byte for byte.
type askState struct {
	Round   int      `json:"round"`
	Answers []string `json:"answers"`
	Odd     string   `json:"odd"`
}

const askOdd = "ü \u2028 \"q\" \\ <&>"

func sealState(s askState) string {
	b, _ := json.Marshal(s)
	sum := sha256.Sum256(b)
	return string(b) + "|" + hex.EncodeToString(sum[:8])
}

func openState(raw string) (askState, error) {
	var s askState
	i := strings.LastIndexByte(raw, '|')
	if i < 0 {
		return s, fmt.Errorf("requestState %q has no seal", raw)
	}
	sum := sha256.Sum256([]byte(raw[:i]))
	if raw[i+1:] != hex.EncodeToString(sum[:8]) {
		return s, fmt.Errorf("requestState was changed on its way back: %q", raw)
	}
	if err := json.Unmarshal([]byte(raw[:i]), &s); err != nil {
		return s, err
	}
	if s.Odd != askOdd {
		return s, fmt.Errorf("requestState lost its odd characters: %q", s.Odd)
	}
	return s, nil
}

// askQuestion is round n's elicitation: a required name, an optional
// colour from a list, and a count with a default.
func askQuestion(n, of int) *mcp.ElicitParams {
	return &mcp.ElicitParams{
		Message: fmt.Sprintf("Question %d of %d", n, of),
		RequestedSchema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"name":   map[string]any{"type": "string", "title": "Name", "description": "who is asking", "minLength": 1},
				"colour": map[string]any{"type": "string", "enum": []any{"red", "green", "blue"}},
				"count":  map[string]any{"type": "integer", "minimum": 1, "maximum": 9, "default": 3},
			},
			"required": []any{"name"},
		},
	}
}

func describeAnswer(res mcp.InputResponse) string {
	r, ok := res.(*mcp.ElicitResult)
	if !ok {
		return fmt.Sprintf("unexpected %T", res)
	}
	if r.Action != "accept" {
		return r.Action
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(r.Content)) {
		b, _ := json.Marshal(r.Content[k])
		parts = append(parts, k+"="+string(b))
	}
	return "accept " + strings.Join(parts, " ")
}

func addInputTools(s *mcp.Server) {
	mcp.AddTool(s, &mcp.Tool{
		Name:        "ask",
		Description: "Ask the client some rounds of questions, then report the answers.",
	}, askTool)

	mcp.AddTool(s, &mcp.Tool{
		Name:        "ask-forever",
		Description: "Ask the client for confirmation, whatever it answers, for ever.",
	}, askForeverTool)

	mcp.AddTool(s, &mcp.Tool{
		Name:        "ask-url",
		Description: "Ask the client to open a URL, then report what it answered.",
	}, askURLTool)

	mcp.AddTool(s, &mcp.Tool{
		Name:        "ask-busy",
		Description: "Answer input_required with nothing to answer (load shedding) times times, then the result.",
	}, askBusyTool)

	mcp.AddTool(s, &mcp.Tool{
		Name:        "ask-url-first",
		Description: "Answer -32042 (visit a URL first) once, then succeed; with complete, say when the URL was visited.",
	}, askURLFirstTool)

	mcp.AddTool(s, &mcp.Tool{
		Name:        "ask-unoffered",
		Description: "Ask the client for roots or sampling, which a client that did not offer them refuses.",
	}, askUnofferedTool)

	mcp.AddTool(s, &mcp.Tool{
		Name:        "log",
		Description: "Send the message (in bold) as a log message at every level, then return.",
	}, logTool)
}

func askTool(_ context.Context, req *mcp.CallToolRequest, in askIn) (*mcp.CallToolResult, any, error) {
	rounds := in.Rounds
	if rounds <= 0 {
		rounds = 2
	}
	st := askState{Odd: askOdd}
	if raw := req.Params.RequestState; raw != "" {
		var err error
		if st, err = openState(raw); err != nil {
			return errorResult(err.Error()), nil, nil
		}
	}
	if st.Round > 0 {
		got, ok := req.Params.InputResponses["q"]
		if !ok {
			return errorResult(fmt.Sprintf("round %d: no answer to question q", st.Round)), nil, nil
		}
		st.Answers = append(st.Answers, fmt.Sprintf("round %d: %s", st.Round, describeAnswer(got)))
	}
	if st.Round == rounds {
		return textResult(strings.Join(st.Answers, "\n")), nil, nil
	}
	st.Round++
	return &mcp.CallToolResult{
		InputRequests: mcp.InputRequestMap{"q": askQuestion(st.Round, rounds)},
		RequestState:  sealState(st),
	}, nil, nil
}

func askForeverTool(context.Context, *mcp.CallToolRequest, noIn) (*mcp.CallToolResult, any, error) {
	return &mcp.CallToolResult{
		InputRequests: mcp.InputRequestMap{"again": &mcp.ElicitParams{
			Message:         "Once more?",
			RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{}},
		}},
	}, nil, nil
}

func askURLTool(_ context.Context, req *mcp.CallToolRequest, _ noIn) (*mcp.CallToolResult, any, error) {
	if got, ok := req.Params.InputResponses["open"]; ok {
		return textResult("url: " + describeAnswer(got)), nil, nil
	}
	return &mcp.CallToolResult{
		InputRequests: mcp.InputRequestMap{"open": &mcp.ElicitParams{
			Mode:          "url",
			Message:       "Sign in to \x1b[31mthe service\x1b[0m",
			URL:           "https://example.com/connect?id=1\x1b]0;x\x07",
			ElicitationID: "e-1",
		}},
	}, nil, nil
}

func askBusyTool(_ context.Context, req *mcp.CallToolRequest, in busyIn) (*mcp.CallToolResult, any, error) {
	n := 0
	if st := req.Params.RequestState; st != "" {
		if _, err := fmt.Sscanf(st, "busy %d", &n); err != nil {
			return errorResult("bad requestState " + st), nil, nil
		}
	}
	if in.Times >= 0 && n >= in.Times {
		return textResult(fmt.Sprintf("done after %d busy answers", n)), nil, nil
	}
	return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{}, RequestState: fmt.Sprintf("busy %d", n+1)}, nil, nil
}

func askURLFirstTool(_ context.Context, req *mcp.CallToolRequest, in urlFirstIn) (*mcp.CallToolResult, any, error) {
	if urlAsked.Swap(true) {
		return textResult("done after the URL"), nil, nil
	}
	if in.Complete {
		go func() {
			time.Sleep(200 * time.Millisecond)
			_ = req.Session.NotifyElicitationComplete(context.Background(), &mcp.ElicitationCompleteParams{ElicitationID: "e-2"})
		}()
	}
	return nil, nil, mcp.URLElicitationRequiredError([]*mcp.ElicitParams{{
		Mode: "url", Message: "Connect your account first", URL: "https://example.com/connect?id=2", ElicitationID: "e-2",
	}})
}

func askUnofferedTool(ctx context.Context, req *mcp.CallToolRequest, in unofferedIn) (*mcp.CallToolResult, any, error) {
	if p := req.Session.InitializeParams(); p != nil && p.ProtocolVersion >= "2026-07-28" {
		// A 2026-07-28 server asks through input_required.
		if _, ok := req.Params.InputResponses["q"]; ok {
			return textResult("got " + in.What), nil, nil
		}
		var q mcp.InputRequest = &mcp.ListRootsParams{}
		if in.What == "sampling" {
			q = &mcp.CreateMessageParams{MaxTokens: 10, Messages: []*mcp.SamplingMessage{}}
		}
		return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"q": q}}, nil, nil
	}
	var err error
	if in.What == "sampling" {
		_, err = req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{MaxTokens: 10})
	} else {
		_, err = req.Session.ListRoots(ctx, nil)
	}
	if err != nil {
		return errorResult(in.What + " failed: " + err.Error()), nil, nil
	}
	return textResult("got " + in.What), nil, nil
}

func logTool(ctx context.Context, req *mcp.CallToolRequest, in logIn) (*mcp.CallToolResult, any, error) {
	for _, level := range []mcp.LoggingLevel{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"} {
		// Escape sequences, which clients must not pass to a terminal.
		data := any("\x1b[1m" + in.Message + "\x1b[0m")
		if level == "error" {
			data = map[string]any{"message": in.Message}
		}
		_ = req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: level, Logger: "test", Data: data})
	}
	return textResult("logged"), nil, nil
}

// confirmQuestion asks for one boolean, as the prompt and resource below do.
func confirmQuestion(what string) mcp.InputRequestMap {
	return mcp.InputRequestMap{"ok": &mcp.ElicitParams{
		Message: "Really " + what + "?",
		RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{
			"confirmed": map[string]any{"type": "boolean"},
		}},
	}}
}

// addInputPrompts adds a prompt and a resource that ask before answering:
// prompts/get and resources/read take input_required results too.
func addInputPrompts(s *mcp.Server) {
	s.AddPrompt(&mcp.Prompt{Name: "ask-prompt", Description: "Ask for confirmation, then return a message."},
		func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			got, ok := req.Params.InputResponses["ok"]
			if !ok {
				return &mcp.GetPromptResult{InputRequests: confirmQuestion("get the prompt")}, nil
			}
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{
				Role: "user", Content: &mcp.TextContent{Text: "prompt: " + describeAnswer(got)},
			}}}, nil
		})
	s.AddResource(&mcp.Resource{URI: "test://ask", Name: "ask", MIMEType: "text/plain"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			got, ok := req.Params.InputResponses["ok"]
			if !ok {
				return &mcp.ReadResourceResult{InputRequests: confirmQuestion("read it")}, nil
			}
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{
				URI: "test://ask", MIMEType: "text/plain", Text: "resource: " + describeAnswer(got),
			}}}, nil
		})
}

func errorResult(msg string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msg}}}
}
