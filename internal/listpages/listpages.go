// Package listpages joins the pages of an MCP list result as the server
// sent them: pure JSON work, below the session.
package listpages

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/mcpc-dev/mcpc/internal/blockbuf"
	"github.com/mcpc-dev/mcpc/internal/rawmsg"
)

// Join merges list pages into one document: the first page's fields in
// their order, the items (under key) of every page, no nextCursor; drop,
// when set, leaves out the items it is true of (tools that are AppOnly, or
// that a server entry's tool filter hides). Join takes pages over: every
// page but the first is set to nil once copied.
func Join(pages []json.RawMessage, key string, drop func(item gjson.Result) bool) json.RawMessage {
	if len(pages) == 0 {
		return json.RawMessage(`{"` + key + `":[]}`)
	}
	// A single page without a cursor and nothing to drop is the document
	// itself: a 30 MB list is not copied to be printed.
	if len(pages) == 1 && !rawmsg.View(pages[0]).Get("nextCursor").Exists() && !dropsAny(pages[0], key, drop) {
		return pages[0]
	}
	size := 0
	for _, p := range pages {
		size += len(p)
	}
	var b bytes.Buffer
	b.Grow(size)
	// The pages are let go as they are copied (Join takes them over), and
	// collected at the end: the collector's goal, set while every page
	// and the joined list were live, was twice both, which is what a
	// paged 30 MB list cost.
	defer blockbuf.Release(size)
	b.WriteByte('{')
	first, wroteItems := true, false
	field := func(k string) {
		if !first {
			b.WriteByte(',')
		}
		first = false
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
	}
	items := func() {
		b.WriteByte('[')
		n := 0
		for i, p := range pages {
			if i > 0 {
				pages[i] = nil // the first is read to the end
			}
			list := rawmsg.View(p).Get(gjson.Escape(key))
			if !list.IsArray() {
				continue // a page that is not a list page has no items to give
			}
			list.ForEach(func(_, it gjson.Result) bool {
				if drop == nil || !drop(it) {
					if n > 0 {
						b.WriteByte(',')
					}
					b.WriteString(it.Raw)
					n++
				}
				return true
			})
		}
		b.WriteByte(']')
		wroteItems = true
	}
	page0 := rawmsg.View(pages[0])
	if !page0.IsObject() {
		page0 = gjson.Result{} // its fields are not fields
	}
	page0.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "nextCursor":
		case key:
			field(key)
			items()
		default:
			field(k.Str)
			b.WriteString(v.Raw)
		}
		return true
	})
	if !wroteItems {
		field(key)
		items()
	}
	b.WriteByte('}')
	return b.Bytes()
}

// dropsAny reports whether drop leaves out any item of page.
func dropsAny(page []byte, key string, drop func(item gjson.Result) bool) bool {
	if drop == nil {
		return false
	}
	found := false
	rawmsg.View(page).Get(gjson.Escape(key)).ForEach(func(_, it gjson.Result) bool {
		found = drop(it)
		return !found
	})
	return found
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
	if !rawmsg.View(page).IsObject() {
		return page // not a list page: the SDK says what is wrong with it
	}
	var b strings.Builder
	b.WriteByte('{')
	rawmsg.View(page).ForEach(func(k, v gjson.Result) bool {
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

// Find returns the item (under key) of page whose "name" is name, or a
// result that does not exist; the page is read where it lies, one item
// at a time (no array of 200,000 results for one name).
func Find(page []byte, key, name string) gjson.Result {
	var found gjson.Result
	rawmsg.View(page).Get(gjson.Escape(key)).ForEach(func(_, it gjson.Result) bool {
		if it.Get("name").Str == name {
			found = it
		}
		return !found.Exists()
	})
	return found
}

// Names calls f with the "name" of each item (under key) of page, in
// order, reading the page where it lies.
func Names(page []byte, key string, f func(item gjson.Result, name string)) {
	rawmsg.View(page).Get(gjson.Escape(key)).ForEach(func(_, it gjson.Result) bool {
		f(it, it.Get("name").Str)
		return true
	})
}
