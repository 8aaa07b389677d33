package client

import (
	"github.com/tidwall/gjson"

	"github.com/mcpc-dev/mcpc/internal/listkind"
	"github.com/mcpc-dev/mcpc/internal/rawmsg"
)

// FindItem is the item named name (a resource template's uriTemplate
// names it too) of list, what ListRaw returned for the kind word. The
// list is read where it lies, one item at a time: a copy of it, or an
// array of 200,000 results, would cost more than the list. When there is
// no such item, item is nil and names are the names there are, for the
// failure to say what was likely meant.
func FindItem(list []byte, word, name string) (item []byte, names []string) {
	k, _ := listkind.Of(word)
	rawmsg.View(list).Get(gjson.Escape(k.Key)).ForEach(func(_, it gjson.Result) bool {
		if it.Get("name").Str == name || word == "templates" && it.Get("uriTemplate").Str == name {
			item, names = []byte(it.Raw), nil
			return false
		}
		names = append(names, it.Get("name").String())
		return true
	})
	return item, names
}
