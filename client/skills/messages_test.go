package skills

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpc-dev/mcpc/internal/fail"
)

// twisted is the fake with some answers replaced: what a server that
// breaks the SEP sends.
type twisted struct {
	*fake
	request func(method string, p map[string]any) json.RawMessage // nil: the fake's
	read    func(uri string) json.RawMessage                      // nil: the fake's
}

func (t *twisted) Request(ctx context.Context, method, id string, p map[string]any) (json.RawMessage, error) {
	if t.request != nil {
		if r := t.request(method, p); r != nil {
			return r, nil
		}
	}
	return t.fake.Request(ctx, method, id, p)
}

func (t *twisted) Read(ctx context.Context, uri string, limit int64) (json.RawMessage, error) {
	if t.read != nil {
		if r := t.read(uri); r != nil {
			return r, nil
		}
	}
	return t.fake.Read(ctx, uri, limit)
}

// dynamicD is a dynamic skill "d" whose SKILL.md the fake serves.
func dynamicD(ext string) *fake {
	return &fake{ext: ext, files: map[string]string{"skill://d/SKILL.md": "---\nname: d\n---\n"},
		listing: []string{`{"uri":"skill://d/SKILL.md","frontmatter":{"name":"d"},"resources":"dynamic"}`}}
}

// rootLists answers resources/directory/read of the skill's directory with
// the entries (JSON objects) and of any other directory with none.
func rootLists(entries ...string) func(string, map[string]any) json.RawMessage {
	return func(method string, p map[string]any) json.RawMessage {
		if method != "resources/directory/read" {
			return nil
		}
		if p["uri"] != "skill://d" {
			return json.RawMessage(`{"resources":[]}`)
		}
		return json.RawMessage(`{"resources":[` + strings.Join(entries, ",") + `]}`)
	}
}

func many(n int, format string) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf(format, i)
	}
	return out
}

// Each way a skills server can break the SEP is named as a protocol
// failure (exit 5) or a size bound (--max-message), with the server and
// the skill.
func TestSkillServerFailures(t *testing.T) {
	anyText := func(uri string) json.RawMessage {
		return json.RawMessage(fmt.Sprintf(`{"contents":[{"uri":%q,"text":"x"}]}`, uri))
	}
	big := json.RawMessage(`{"contents":[{"text":"` + strings.Repeat("a", MaxBytes+1) + `"}]}`)
	for _, c := range []struct {
		name  string
		s     Conn
		all   bool
		limit int64
		code  fail.Code
		want  string
	}{
		{"dynamic without directoryRead", dynamicD(`{}`), true, 1 << 20, fail.Rejected,
			`skill "d" from server "fake" is served dynamically: it lists no files, and the server offers no resources/directory/read (directoryRead) to find them`},
		{"directories without end", &twisted{fake: dynamicD(`{"directoryRead":true}`),
			request: rootLists(many(MaxFiles+1, `{"uri":"skill://d/sub%d","mimeType":"inode/directory"}`)...)}, true, 1 << 20, fail.Protocol,
			`skill "d" from server "fake" has more than 512 directories`},
		{"a file outside the skill", &twisted{fake: dynamicD(`{"directoryRead":true}`),
			request: rootLists(`{"uri":"skill://other/x.md"}`)}, true, 1 << 20, fail.Protocol,
			`server "fake" lists skill://other/x.md in the directory of skill "d": outside it`},
		{"too many files", &twisted{fake: dynamicD(`{"directoryRead":true}`),
			request: rootLists(many(MaxFiles+1, `{"uri":"skill://d/f%d.md"}`)...),
			read: func(uri string) json.RawMessage {
				if uri == "skill://d/SKILL.md" {
					return nil
				}
				return anyText(uri)
			}}, true, 1 << 20, fail.Protocol,
			`skill "d" from server "fake" has more than 512 files, the most a skill may have`},
		{"files past 16 MiB together", &twisted{fake: dynamicD(`{"directoryRead":true}`),
			request: rootLists(`{"uri":"skill://d/big.md"}`),
			read: func(uri string) json.RawMessage {
				if uri == "skill://d/big.md" {
					return big
				}
				return nil
			}}, true, 1 << 20, fail.Protocol,
			`skill "d" from server "fake" holds more than 16777216 bytes (16 MiB), the most a skill may hold`},
		{"a blob that is not base64", &twisted{fake: dynamicD(`{}`),
			read: func(uri string) json.RawMessage {
				return json.RawMessage(`{"contents":[{"uri":"skill://d/SKILL.md","blob":"not base64!"}]}`)
			}},
			false, 1 << 20, fail.Protocol,
			`server "fake" sent skill://d/SKILL.md as a blob that is not base64`},
		{"no contents", &twisted{fake: dynamicD(`{}`),
			read: func(uri string) json.RawMessage { return json.RawMessage(`{"contents":[]}`) }},
			false, 1 << 20, fail.Protocol,
			`server "fake" answered resources/read of skill://d/SKILL.md with no contents for it`},
		{"pages without end", &twisted{fake: &fake{ext: `{}`}, request: func(method string, _ map[string]any) json.RawMessage {
			return json.RawMessage(`{"skills":[],"nextCursor":"again"}`)
		}}, false, 1 << 20, fail.Protocol,
			`skills/list of server "fake" does not end: the server keeps handing out cursors ("again" again, or more than 1000 pages)`},
		{"pages past the bound together", &fake{ext: `{}`, listing: []string{`{"uri":"skill://a/SKILL.md"}`, `{"uri":"skill://b/SKILL.md"}`}},
			false, 60, fail.TooLarge,
			`the pages of skills/list from server "fake" are larger than 60 bytes together`},
	} {
		_, _, err := Get(t.Context(), c.s, "d", c.all, c.limit)
		if err == nil || err.Error() != c.want || fail.CodeOf(err) != c.code {
			t.Errorf("%s: err = %v (%s), want %q (%s)", c.name, err, fail.CodeOf(err), c.want, c.code)
		}
	}
	notList := &twisted{fake: &fake{ext: `{}`}, request: func(method string, _ map[string]any) json.RawMessage {
		return json.RawMessage(`{"skills":{"d":{}}}`)
	}}
	_, _, err := Get(t.Context(), notList, "d", false, 1<<20)
	if want := `server "fake" answered skills/list with something that is not a list of skills: `; err == nil ||
		!strings.HasPrefix(err.Error(), want) || fail.CodeOf(err) != fail.Protocol {
		t.Errorf("not a list: err = %v, want %q…", err, want)
	}
}
