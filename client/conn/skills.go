package conn

import (
	"cmp"
	"context"
	"encoding/json"

	"github.com/tidwall/gjson"

	"github.com/mcpc-dev/mcpc/client/skills"
	"github.com/mcpc-dev/mcpc/client/transport"
	"github.com/mcpc-dev/mcpc/internal/listpages"
)

// skillExtension is the skills extension, which caps.go declares.
const skillExtension = skills.Extension

// ListSkills sends skills/list, every page, joined as sent; reads no file.
func (s *Conn) ListSkills(ctx context.Context) (json.RawMessage, error) {
	pages, err := skills.List(ctx, taskConn{s}, s.pagesLimit())
	return listpages.Join(pages, "skills", nil), err
}

// GetSkill reads the skill called name, verified (skills.Get).
func (s *Conn) GetSkill(ctx context.Context, name string, all bool) (*skills.Entry, []skills.Fetched, error) {
	return skills.Get(ctx, taskConn{s}, name, all, s.pagesLimit())
}

// pagesLimit bounds the pages of a list mcpc joins, as if one message.
func (s *Conn) pagesLimit() int64 { return cmp.Or(s.maxMessage, transport.DefaultMaxMessage) }

// Extension is what the server declared of an extension, as it arrived.
func (t taskConn) Extension(id string) gjson.Result {
	return t.s.capability("extensions." + gjson.Escape(id))
}

// capability is what the server declared at path of its capabilities, as
// its handshake (or the era memo's server/discover) carried it.
func (s *Conn) capability(path string) gjson.Result {
	res := string(last(s.wire.peek("initialize")))
	if s.modern() {
		res = cmp.Or(string(last(s.wire.peek("server/discover"))), string(s.wire.discover))
	}
	return gjson.Get(res, "capabilities."+path)
}

// Read reads uri with the tap's size limit lowered to limit while it
// waits: mcpc sends nothing else meanwhile (see transport.Tap.Bound).
func (t taskConn) Read(ctx context.Context, uri string, limit int64) (json.RawMessage, error) {
	bounded := limit < t.s.pagesLimit()
	if bounded {
		defer t.s.wire.tap.Bound(limit)()
	}
	raw, err := t.s.ReadResource(ctx, uri)
	if err != nil && bounded && t.s.wire.tap.LimitErr() == transport.ErrTooLarge {
		return nil, skills.ErrOverLimit
	}
	return raw, err
}
