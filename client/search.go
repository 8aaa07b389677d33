package client

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tidwall/gjson"

	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/listkind"
	"github.com/mcpc-dev/mcpc/internal/rawmsg"
	"github.com/mcpc-dev/mcpc/internal/schemadiff"
)

// Lister is what a search or a snapshot reads of a session: every page of
// a list (conn.Conn.ListRaw).
type Lister interface {
	ListRaw(ctx context.Context, kind string) (json.RawMessage, error)
}

// Match is one tool, prompt or resource a search found (mcpc grep's line).
type Match struct {
	Server      string `json:"server"`
	Kind        string `json:"kind"` // tool, prompt or resource
	Name        string `json:"name"`
	URI         string `json:"uri,omitempty"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
}

// searchKinds are the lists a search reads, in the order it returns
// matches.
var searchKinds = []string{"tools", "prompts", "resources"}

// Search lists the tools, prompts and resources a server declares (caps;
// nil: none) and returns those match accepts, named server. A list that
// fails does not stop the others: its error is returned beside the
// matches, in searchKinds' order.
func Search(ctx context.Context, l Lister, caps *mcp.ServerCapabilities, server string, match func(Match) bool) ([]Match, []error) {
	var found []Match
	var errs []error
	for _, word := range searchKinds {
		k, _ := listkind.Of(word)
		if caps == nil || !k.Offered(caps) {
			continue
		}
		raw, err := l.ListRaw(ctx, k.Word)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		rawmsg.View(raw).Get(k.Key).ForEach(func(_, it gjson.Result) bool {
			m := Match{Server: server, Kind: k.Item, Name: it.Get("name").String(), URI: it.Get("uri").String(),
				Title: it.Get("title").String(), Description: it.Get("description").String()}
			if m.Title == "" {
				m.Title = it.Get("annotations.title").String()
			}
			if match(m) {
				found = append(found, m)
			}
			return true
		})
	}
	return found, errs
}

// snapshotKinds are the lists a snapshot holds.
var snapshotKinds = []string{"tools", "prompts", "templates"}

// Snapshot builds a server's snapshot (mcpc snapshot, mcpc diff) from the
// lists every other command reads (ListRaw: every page, app-only tools
// left out). A kind the server does not declare is not asked for; a
// server that declares nothing (caps nil) is asked for all. label names
// the server in the failure of a list mcpc cannot read.
func Snapshot(ctx context.Context, l Lister, caps *mcp.ServerCapabilities, label string) (*schemadiff.Snapshot, error) {
	lists := map[string][]byte{}
	for _, word := range snapshotKinds {
		if k, _ := listkind.Of(word); caps != nil && !k.Offered(caps) {
			continue
		}
		raw, err := l.ListRaw(ctx, word)
		if err != nil {
			return nil, err
		}
		lists[word] = raw
	}
	snap, err := schemadiff.FromLists(lists["tools"], lists["prompts"], lists["templates"])
	if err != nil {
		return nil, fail.New(fail.Protocol, "", "%s sent a list mcpc cannot read: %v", label, err)
	}
	return snap, nil
}
