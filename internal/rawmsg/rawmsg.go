// Package rawmsg reads a JSON-RPC message's top level from its raw bytes,
// without decoding it: what the wire needs to recognise a message before
// the SDK decodes it (a large result to keep, a list page to cut, a
// notification to hand over undecoded).
package rawmsg

import (
	"bytes"
	"strings"
	"unsafe"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tidwall/gjson"
)

// Message is the top level of a JSON-RPC message: each member as gjson
// found it (Index is its offset in the bytes), Other when there is a
// member JSON-RPC does not define.
type Message struct {
	Version, ID, Method, Params, Result, Error gjson.Result
	Other                                      bool
}

// View parses data where it lies: gjson's Bytes functions copy what they
// return (ParseBytes the whole input, GetBytes and GetManyBytes each value
// found), which for a list of 200,000 items is the list again. The
// results point into data, which must not change while they are in use:
// a string kept beyond that, or kept long while data is large, is cloned.
func View(data []byte) gjson.Result {
	return gjson.Parse(unsafe.String(unsafe.SliceData(data), len(data)))
}

// Within returns the bytes of data that r (a result of View(data)) is,
// without a copy, or nil when r is not a part of data (a value a modifier
// or a multipath made).
func Within(data []byte, r gjson.Result) []byte {
	if i := r.Index; i >= 0 && r.Raw != "" && i+len(r.Raw) <= len(data) && string(data[i:i+len(r.Raw)]) == r.Raw {
		return data[i : i+len(r.Raw) : i+len(r.Raw)]
	}
	return nil
}

// StringBytes is the value of r, a string of View(data), as bytes with no
// copy of its own: where it lies in data when it has no escapes, else the
// string gjson unescaped it into (which nothing else holds). The bytes
// must not be changed.
func StringBytes(data []byte, r gjson.Result) []byte {
	if in := Within(data, r); len(in) >= 2 && bytes.IndexByte(in, '\\') < 0 {
		return in[1 : len(in)-1 : len(in)-1]
	}
	return unsafe.Slice(unsafe.StringData(r.Str), len(r.Str))
}

// Parse makes one pass over the top level of data (valid JSON); nothing is
// copied, so the results point into data.
func Parse(data []byte) Message {
	var m Message
	View(data).ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "jsonrpc":
			m.Version = v
		case "id":
			m.ID = v
		case "method":
			m.Method = v
		case "params":
			m.Params = v
		case "result":
			m.Result = v
		case "error":
			m.Error = v
		default:
			m.Other = true
		}
		return true
	})
	return m
}

// Notification reports whether m is a JSON-RPC 2.0 notification with
// object params, and those params' bytes in data.
func (m Message) Notification(data []byte) ([]byte, bool) {
	if m.Other || m.Version.Str != "2.0" || m.ID.Exists() || m.Method.Type != gjson.String || !m.Params.IsObject() {
		return nil, false
	}
	return Within(data, m.Params), true
}

// Progress reads notifications/progress params by one pass (a decode
// through reflection was most of the cost of a progress flood); false when
// they are not well formed, for the SDK to say why. params are read where
// they lie; the strings kept are cloned, since a line buffer may be reused.
func Progress(params []byte) (*mcp.ProgressNotificationParams, bool) {
	var p mcp.ProgressNotificationParams
	ok := true
	View(params).ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "progressToken":
			p.ProgressToken = v.Value()
			if v.Type == gjson.String {
				p.ProgressToken = strings.Clone(v.Str)
			}
		case "progress":
			ok, p.Progress = v.Type == gjson.Number, v.Num
		case "total":
			ok, p.Total = v.Type == gjson.Number, v.Num
		case "message":
			ok, p.Message = v.Type == gjson.String, strings.Clone(v.Str)
		}
		return ok
	})
	return &p, ok && p.ProgressToken != nil
}
