package input

import (
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// An answer to a question asked under a task carries the task's
// related-task _meta (2025-11-25); other answers are left as they are.
func TestElicitAnswerNamesItsTask(t *testing.T) {
	rt := map[string]any{"taskId": "t1"}
	p := &mcp.ElicitParams{Meta: mcp.Meta{RelatedTaskKey: rt}, Message: "?"}
	res := &mcp.ElicitResult{Action: "accept", Content: map[string]any{"a": "b"}}
	got, _ := json.Marshal(withRelatedTask(p, res))
	if string(got) != `{"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"t1"}},"action":"accept","content":{"a":"b"}}` {
		t.Fatalf("answer = %s", got)
	}
	if res.Meta != nil {
		t.Fatal("the handler's result was changed in place")
	}
	if got := withRelatedTask(&mcp.ElicitParams{Message: "?"}, res); got != res {
		t.Fatalf("an answer outside a task changed: %+v", got)
	}
}
