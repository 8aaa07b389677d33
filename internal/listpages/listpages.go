// Package listpages joins the pages of an MCP list result as the server
// sent them: pure JSON work, below the session.
package listpages

import (
	"encoding/json"
	"strings"

	"github.com/tidwall/gjson"
)

// Join merges list pages into one document: the first page's fields in
// their order, the items (under key) of every page, no nextCursor; drop,
// when set, leaves out the items it is true of (tools that are AppOnly, or
// that a server entry's tool filter hides).
func Join(pages []json.RawMessage, key string, drop func(item gjson.Result) bool) json.RawMessage {
	if len(pages) == 0 {
		return json.RawMessage(`{"` + key + `":[]}`)
	}
	if len(pages) == 1 && drop == nil && !gjson.GetBytes(pages[0], "nextCursor").Exists() {
		return pages[0]
	}
	var items []string
	for _, p := range pages {
		for _, it := range gjson.GetBytes(p, key).Array() {
			if drop != nil && drop(it) {
				continue
			}
			items = append(items, it.Raw)
		}
	}
	var b strings.Builder
	b.WriteByte('{')
	first, wroteItems := true, false
	field := func(k, raw string) {
		if !first {
			b.WriteByte(',')
		}
		first = false
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		b.WriteString(raw)
	}
	gjson.ParseBytes(pages[0]).ForEach(func(k, v gjson.Result) bool {
		switch k.String() {
		case "nextCursor":
		case key:
			field(key, "["+strings.Join(items, ",")+"]")
			wroteItems = true
		default:
			field(k.String(), v.Raw)
		}
		return true
	})
	if !wroteItems {
		field(key, "["+strings.Join(items, ",")+"]")
	}
	b.WriteByte('}')
	return json.RawMessage(b.String())
}

// AppOnly says a tool as the server sent it is for an MCP App only: its
// _meta.ui.visibility lacks "model" (absent means ["model", "app"]).
func AppOnly(tool gjson.Result) bool {
	vis := tool.Get("_meta.ui.visibility")
	if !vis.IsArray() {
		return false
	}
	for _, v := range vis.Array() {
		if v.String() == "model" {
			return false
		}
	}
	return true
}

// Keep is a list page with only the items (under key) keep is true of,
// named by their "name"; every other field stays as it came (nextCursor
// among them, so a reader still pages).
func Keep(page []byte, key string, keep func(name string) bool) []byte {
	var b strings.Builder
	b.WriteByte('{')
	gjson.ParseBytes(page).ForEach(func(k, v gjson.Result) bool {
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		b.WriteString(k.Raw)
		b.WriteByte(':')
		if k.Str != key || !v.IsArray() {
			b.WriteString(v.Raw)
			return true
		}
		b.WriteByte('[')
		n := 0
		v.ForEach(func(_, item gjson.Result) bool {
			if keep(item.Get("name").Str) {
				if n > 0 {
					b.WriteByte(',')
				}
				b.WriteString(item.Raw)
				n++
			}
			return true
		})
		b.WriteByte(']')
		return true
	})
	b.WriteByte('}')
	return []byte(b.String())
}
