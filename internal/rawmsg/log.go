//lint:file-ignore SA1019 logging is deprecated in 2026-07-28, yet 2025 servers log: mcpc shows the logs

package rawmsg

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	segjson "github.com/segmentio/encoding/json"
	"github.com/tidwall/gjson"
)

// Log reads notifications/message params by one pass, as Progress does:
// its data stays the JSON the server wrote (a json.RawMessage of its own),
// checked but not decoded, for the watch line and the stderr note that
// show it; false when they are not well formed, for the SDK to say why.
func Log(params []byte) (*mcp.LoggingMessageParams, bool) {
	var p mcp.LoggingMessageParams
	ok := true
	View(params).ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "level":
			ok, p.Level = v.Type == gjson.String, mcp.LoggingLevel(strings.Clone(v.Str))
		case "logger":
			ok, p.Logger = v.Type == gjson.String, strings.Clone(v.Str)
		case "data":
			raw := Within(params, v)
			if ok = raw != nil && segjson.Valid(raw); ok && v.Type != gjson.Null {
				p.Data = json.RawMessage(bytes.Clone(raw)) // null: none, as decoded
			}
		}
		return ok
	})
	return &p, ok && p.Level != ""
}
