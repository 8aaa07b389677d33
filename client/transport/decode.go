package transport

import (
	"bytes"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	segjson "github.com/segmentio/encoding/json"
)

// wireMessage is the SDK's decode form of a JSON-RPC message (its
// jsonrpc2.wireDecode): the same fields, tags and decoder, so that a
// message decodes here as it does there.
type wireMessage struct {
	VersionTag string          `json:"jsonrpc"`
	ID         any             `json:"id,omitempty"`
	Method     json.RawMessage `json:"method"`
	Params     json.RawMessage `json:"params,omitempty"`
	Result     json.RawMessage `json:"result,omitempty"`
	Error      *jsonrpc.Error  `json:"error,omitempty"`
}

// sdkMaxDepth is the nesting the SDK's decoder accepts.
const sdkMaxDepth = 1000

// DecodeMessage is jsonrpc.DecodeMessage without its cost: the SDK
// reads each message through a json.Decoder of its own, a 32 KiB buffer
// allocated per message, which a holder or serve passing thousands of
// small messages a second spends most of its allocations (and so its GC
// pauses) on. The message is parsed in place by the same decoder, with
// the same flags; what it keeps is copied, so data may be reused. A
// message the fast path does not accept is given to the SDK's, whose
// error is the one returned: the two fail alike.
func DecodeMessage(data []byte) (jsonrpc.Message, error) {
	if m := decodeFast(data); m != nil {
		return m, nil
	}
	return jsonrpc.DecodeMessage(data)
}

// decodeFast is the message data holds, or nil where the SDK's decoder
// would fail (or might: the SDK decides those).
func decodeFast(data []byte) jsonrpc.Message {
	if deeper(data, sdkMaxDepth) {
		return nil
	}
	const flags = segjson.DontMatchCaseInsensitiveStructFields
	var w wireMessage
	// What follows the first value is left unread, as the SDK's decoder
	// leaves it.
	if _, err := segjson.Parse(data, &w, flags); err != nil || w.VersionTag != "2.0" {
		return nil
	}
	id, err := jsonrpc.MakeID(w.ID)
	if err != nil {
		return nil
	}
	if len(w.Method) > 0 {
		var method string
		if _, err := segjson.Parse(w.Method, &method, flags); err != nil {
			return nil
		}
		return &jsonrpc.Request{Method: method, ID: id, Params: w.Params}
	}
	if !id.IsValid() {
		return nil
	}
	resp := &jsonrpc.Response{ID: id, Result: w.Result}
	if w.Error != nil {
		resp.Error = w.Error // a nil *Error would be a non-nil error
	}
	return resp
}

// deeper says data nests objects and arrays past max, counted as the
// SDK counts them (brackets outside strings). A string is skipped to its
// closing quote at memchr speed (a quote with an odd run of backslashes
// before it is escaped): most of a message's bytes are in strings.
func deeper(data []byte, max int) bool {
	depth := 0
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '"':
			if i = stringEnd(data, i); i < 0 {
				return false // unterminated: the decoder says so
			}
		case '{', '[':
			if depth++; depth > max {
				return true
			}
		case '}', ']':
			if depth > 0 {
				depth--
			}
		}
	}
	return false
}

// stringEnd is the index of the quote that closes the string whose
// opening quote is at data[open], or -1.
func stringEnd(data []byte, open int) int {
	for i := open + 1; ; {
		j := bytes.IndexByte(data[i:], '"')
		if j < 0 {
			return -1
		}
		i += j
		n := 0
		for k := i - 1; k > open && data[k] == '\\'; k-- {
			n++
		}
		if n%2 == 0 {
			return i
		}
		i++
	}
}
