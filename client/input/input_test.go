package input

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A retry carries this round's answers and the state exactly as sent, in a
// copy: the caller's params never gain them, so nothing leaks into another
// request.
func TestRetryCopiesParams(t *testing.T) {
	orig := &mcp.CallToolParams{Name: "t", Arguments: map[string]any{"a": 1}}
	req := &mcp.ClientRequest[*mcp.CallToolParams]{Params: orig}
	answers := mcp.InputResponseMap{"q": &mcp.ElicitResult{Action: "accept"}}
	state := "ü \u2028 {\"x\":1}|seal"
	next, err := retry(req, answers, state)
	if err != nil {
		t.Fatal(err)
	}
	p := next.GetParams().(*mcp.CallToolParams)
	if p == orig || p.RequestState != state || p.InputResponses["q"] == nil || p.Name != "t" {
		t.Fatalf("retry params = %+v", p)
	}
	if orig.RequestState != "" || orig.InputResponses != nil {
		t.Fatalf("original params changed: %+v", orig)
	}
	b, _ := json.Marshal(p)
	var wire map[string]any
	_ = json.Unmarshal(b, &wire)
	if wire["requestState"] != state {
		t.Fatalf("requestState on the wire = %q", wire["requestState"])
	}

	// No state from the server: none in the retry.
	next, _ = retry(req, answers, "")
	b, _ = json.Marshal(next.GetParams())
	var bare map[string]any
	if json.Unmarshal(b, &bare); bare["requestState"] != nil {
		t.Fatalf("retry without state sent %v", bare["requestState"])
	}
}

func TestURLsRequired(t *testing.T) {
	err := fmt.Errorf("calling: %w", mcp.URLElicitationRequiredError([]*mcp.ElicitParams{
		{Mode: "url", URL: "https://example.com/a", ElicitationID: "1", Message: "go"},
	}))
	urls := urlsRequired(err)
	if len(urls) != 1 || urls[0].URL != "https://example.com/a" || urls[0].ElicitationID != "1" {
		t.Fatalf("urls = %+v", urls)
	}
	if urlsRequired(errors.New("other")) != nil || urlsRequired(nil) != nil {
		t.Fatal("urls from a non -32042 error")
	}
}

func TestLevelRank(t *testing.T) {
	if !(LevelRank("debug") < LevelRank("warning") && LevelRank("warning") < LevelRank("emergency")) {
		t.Fatal("levels out of order")
	}
	// An unknown level is shown rather than lost.
	if LevelRank("loud") <= LevelRank("emergency") {
		t.Fatal("unknown level ranks below emergency")
	}
}
