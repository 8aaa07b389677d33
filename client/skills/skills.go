// Package skills reads Agent Skills a server serves under the
// io.modelcontextprotocol/skills extension (SEP-2640): skills/list, every
// page; an entry checked before anything of it is read (its URIs inside the
// skill, within the per-skill limits); then its SKILL.md and, when asked,
// every other listed file, each verified against the entry (size, SHA-256
// digest, and for SKILL.md the YAML frontmatter field by field) before the
// next is read. Nothing is read ahead of need: listing reads no file.
//
// It works over Conn, the few things it needs of a connection; the
// client package implements it (client/skills.go). It imports nothing of
// client.
package skills

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/tidwall/gjson"

	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/suggest"
)

// Extension is the extension's identifier, declared by mcpc and by the
// servers that serve skills.
const Extension = "io.modelcontextprotocol/skills"

// The SEP's per-skill limits: what every conforming host accepts, checked
// from the entry before a file is read.
const (
	MaxFiles = 512
	MaxBytes = 16 << 20
)

// maxPages bounds skills/list and resources/directory/read pagination: a
// server that hands out cursors for ever is not followed for ever.
const maxPages = 1000

// Conn is what this package needs of a connection to a server.
type Conn interface {
	// Label names the server in messages.
	Label() string
	// Extension returns an extension's settings as the server declared
	// them (.Exists() false when it declared none).
	Extension(id string) gjson.Result
	// Request sends a method the SDK does not know, with params extra,
	// and returns its result as it arrived (id is for tasks: "" here).
	Request(ctx context.Context, method, id string, extra map[string]any) (json.RawMessage, error)
	// Explain turns a failed request into the error to report.
	Explain(ctx context.Context, what string, err error) error
	// Read sends resources/read and returns the result as it arrived;
	// errors come explained. Its answer is read up to limit bytes, no
	// further: past them the error is ErrOverLimit.
	Read(ctx context.Context, uri string, limit int64) (json.RawMessage, error)
}

// ErrOverLimit is Conn.Read's error for an answer larger than the
// limit it was given.
var ErrOverLimit = errors.New("the answer is larger than the file can be")

// messageLimit is the most bytes resources/read's answer can take for a
// file of size bytes: as JSON text every byte may be escaped in six
// (\u001f), as a base64 blob three take four; 64 KiB are left for the
// rest (the item's URI, MIME type, _meta). A server that sends more is
// sending more than the file, and is cut there.
func messageLimit(size int64) int64 { return 6*size + 64<<10 }

// Entry is one skill entry of skills/list or skills/get, checked.
type Entry struct {
	URI         string
	Name        string // frontmatter.name
	Root        string // the skill's directory: URI without "SKILL.md"
	Frontmatter map[string]any
	Files       []File // SKILL.md first; nil when Dynamic
	Dynamic     bool   // "resources": "dynamic": nothing to verify against
}

// File is one listed file of a skill.
type File struct {
	URI    string
	Path   string // relative to the skill's directory, "/"-separated
	Digest string
	Size   int64
}

// Fetched is a file read and verified.
type Fetched struct {
	File
	Content json.RawMessage // the contents item of resources/read, as sent
	Data    []byte
}

// declared fails unless the server declared the extension.
func declared(s Conn) error {
	if !s.Extension(Extension).Exists() {
		return fail.New(fail.Rejected, "skills come from servers that declare the extension; 'mcpc list SERVER resources' shows what this one serves",
			"%s does not serve skills: it declares no %s extension", s.Label(), Extension)
	}
	return nil
}

// List sends skills/list, every page, and returns the pages as they
// arrived. limit bounds the pages together, as if one message.
func List(ctx context.Context, s Conn, limit int64) ([]json.RawMessage, error) {
	if err := declared(s); err != nil {
		return nil, err
	}
	return pages(ctx, s, "skills/list", map[string]any{}, limit)
}

// Get finds the skill called name (Find) in the listing and reads it
// (Fetch): SKILL.md, and with all every other file, each verified.
func Get(ctx context.Context, s Conn, name string, all bool, limit int64) (*Entry, []Fetched, error) {
	listing, err := List(ctx, s, limit)
	if err != nil {
		return nil, nil, err
	}
	e, err := Find(ctx, s, listing, name)
	if err != nil {
		return nil, nil, err
	}
	files, err := Fetch(ctx, s, e, all)
	return e, files, err
}

// request sends one of the extension's methods.
func request(ctx context.Context, s Conn, method string, params map[string]any) (json.RawMessage, error) {
	res, err := s.Request(ctx, method, "", params)
	if err != nil {
		return nil, s.Explain(ctx, "send "+method+" to", err)
	}
	return res, nil
}

// pages follows a paginated method's nextCursor to the end.
func pages(ctx context.Context, s Conn, method string, params map[string]any, limit int64) ([]json.RawMessage, error) {
	var out []json.RawMessage
	seen, total := map[string]bool{}, int64(0)
	for {
		res, err := request(ctx, s, method, params)
		if err != nil {
			return nil, err
		}
		if total += int64(len(res)); total > limit {
			return nil, fail.New(fail.TooLarge, "raise --max-message", "the pages of %s from %s are larger than %d bytes together", method, s.Label(), limit)
		}
		out = append(out, res)
		var page struct {
			NextCursor string `json:"nextCursor"`
		}
		json.Unmarshal(res, &page)
		switch {
		case page.NextCursor == "":
			return out, nil
		case seen[page.NextCursor] || len(out) >= maxPages:
			return nil, fail.New(fail.Protocol, "", "%s of %s does not end: the server keeps handing out cursors (%q again, or more than %d pages)",
				method, s.Label(), page.NextCursor, maxPages)
		}
		seen[page.NextCursor] = true
		params["cursor"] = page.NextCursor
	}
}

// Find returns the entry of the skill called name in the listing pages:
// its frontmatter name, its path (acme/billing/refunds) or its SKILL.md
// URI. A skill:// URI no listing mentions is asked for with skills/get,
// since a server's listing may be partial.
func Find(ctx context.Context, s Conn, listing []json.RawMessage, name string) (*Entry, error) {
	var raws []json.RawMessage
	for _, p := range listing {
		var page struct {
			Skills []json.RawMessage `json:"skills"`
		}
		if err := json.Unmarshal(p, &page); err != nil {
			return nil, fail.Wrap(fail.Protocol, err, "", "%s answered skills/list with something that is not a list of skills", s.Label())
		}
		raws = append(raws, page.Skills...)
	}
	var matches, names []string
	var found json.RawMessage
	for _, raw := range raws {
		var e struct {
			URI         string `json:"uri"`
			Frontmatter struct {
				Name string `json:"name"`
			} `json:"frontmatter"`
		}
		json.Unmarshal(raw, &e)
		p := skillPath(e.URI)
		if name == e.URI || name == p || name == e.Frontmatter.Name {
			matches, found = append(matches, p), raw
		}
		names = append(names, e.Frontmatter.Name)
	}
	switch {
	case len(matches) > 1:
		return nil, fail.New(fail.Usage, "name it by its path: "+strings.Join(matches, ", "),
			"%s serves %d skills named %q", s.Label(), len(matches), name)
	case len(matches) == 1:
		return ParseEntry(s.Label(), found)
	case strings.Contains(name, "://"):
		res, err := request(ctx, s, "skills/get", map[string]any{"uri": name})
		if err != nil {
			return nil, err
		}
		var got struct {
			Skill json.RawMessage `json:"skill"`
		}
		json.Unmarshal(res, &got)
		return ParseEntry(s.Label(), got.Skill)
	}
	hint := "list them with: mcpc skills SERVER"
	hint = suggest.Hint(name, names, hint)
	return nil, fail.New(fail.Rejected, hint, "%s lists no skill named %q", s.Label(), name)
}

// skillPath is a SKILL.md URI's skill path: the part between the scheme
// and /SKILL.md.
func skillPath(uri string) string {
	_, rest, ok := strings.Cut(uri, "://")
	if !ok {
		rest = uri
	}
	return strings.TrimSuffix(rest, "/SKILL.md")
}

var digestRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^sha256:[0-9a-f]{64}$`) })

// ParseEntry checks a skill entry before anything of the skill is read:
// the shape the SEP requires, every file inside the skill's directory
// under a path that stays inside any directory it is written to, and the
// per-skill limits.
func ParseEntry(label string, raw json.RawMessage) (*Entry, error) {
	var e struct {
		URI         string          `json:"uri"`
		Frontmatter map[string]any  `json:"frontmatter"`
		Resources   json.RawMessage `json:"resources"`
	}
	bad := func(format string, args ...any) error {
		return fail.New(fail.Protocol, "the server's skill entry is unusable; nothing of it was read",
			"%s lists a skill %s", label, fmt.Sprintf(format, args...))
	}
	if err := json.Unmarshal(raw, &e); err != nil || len(raw) == 0 || string(raw) == "null" {
		return nil, bad("entry that is not an object")
	}
	if !strings.HasSuffix(e.URI, "/SKILL.md") || !strings.Contains(e.URI, "://") {
		return nil, bad("whose uri %q is not the URI of a SKILL.md", e.URI)
	}
	name, _ := e.Frontmatter["name"].(string)
	if e.Frontmatter == nil || name == "" {
		return nil, bad("%s without a frontmatter object naming it", e.URI)
	}
	if path.Base(skillPath(e.URI)) != name {
		return nil, bad("%s named %q: its path must end in its name", e.URI, name)
	}
	out := &Entry{URI: e.URI, Name: name, Root: strings.TrimSuffix(e.URI, "SKILL.md"), Frontmatter: e.Frontmatter}
	if string(e.Resources) == `"dynamic"` {
		out.Dynamic = true
		return out, nil
	}
	var files []File
	if err := json.Unmarshal(e.Resources, &files); err != nil || files == nil {
		return nil, bad("%s whose resources are neither a list of files nor \"dynamic\"", e.URI)
	}
	if len(files) > MaxFiles {
		return nil, bad("%s of %d files, over the %d a skill may have", e.URI, len(files), MaxFiles)
	}
	var total int64
	var tree layout
	for i := range files {
		f := &files[i]
		rel, ok := strings.CutPrefix(f.URI, out.Root)
		if !ok || !LocalPath(rel) {
			return nil, bad("%s with a file outside its directory: %q", e.URI, f.URI)
		}
		if clash := tree.add(out.Root, rel); clash != "" {
			return nil, bad("%s %s", e.URI, clash)
		}
		switch {
		case !digestRE().MatchString(f.Digest):
			return nil, bad("%s whose file %s has no sha256:HEX digest (%q)", e.URI, f.URI, f.Digest)
		case f.Size < 0:
			return nil, bad("%s whose file %s has a negative size", e.URI, f.URI)
		}
		f.Path = rel
		if total += f.Size; total > MaxBytes {
			return nil, bad("%s of more than %d bytes (16 MiB), the most a skill may hold", e.URI, MaxBytes)
		}
	}
	i := slices.IndexFunc(files, func(f File) bool { return f.URI == e.URI })
	if i < 0 {
		return nil, bad("%s whose resources do not include its SKILL.md", e.URI)
	}
	files[0], files[i] = files[i], files[0]
	out.Files = files
	return out, nil
}

// LocalPath reports whether rel, a "/"-separated path from a skill's
// directory, names a file inside it on every system: no absolute path, no
// empty, "." or ".." segment, no backslash, drive or control character.
func LocalPath(rel string) bool {
	if rel == "" || strings.ContainsAny(rel, `\:`) {
		return false
	}
	for _, seg := range strings.Split(rel, "/") {
		if seg == "" || seg == "." || seg == ".." || strings.ContainsFunc(seg, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
			return false
		}
	}
	return true
}

// layout is the tree a skill's files make on disk, where they must all fit
// before anything is read or written: no path twice, and no file where
// another file needs a directory (a, a/b), in either order. Letter case
// aside, since a skill is written to file systems that ignore it.
type layout struct {
	files map[string]string // lowercased path → as listed
	dirs  map[string]string // lowercased directory → a file under it, as listed
}

// add records rel, a LocalPath under root, and says how it clashes with a
// path added before ("" when it does not): a phrase to follow the skill's
// URI in a message.
func (t *layout) add(root, rel string) string {
	if t.files == nil {
		t.files, t.dirs = map[string]string{}, map[string]string{}
	}
	low := strings.ToLower(rel)
	if _, dup := t.files[low]; dup {
		return fmt.Sprintf("that lists %s twice (letter case aside)", root+rel)
	}
	if under, ok := t.dirs[low]; ok {
		return fmt.Sprintf("whose file %s is also the directory of %s (letter case aside): both cannot be written", root+rel, root+under)
	}
	for i := range len(low) {
		if low[i] != '/' {
			continue
		}
		if file, ok := t.files[low[:i]]; ok {
			return fmt.Sprintf("whose file %s is also the directory of %s (letter case aside): both cannot be written", root+file, root+rel)
		}
	}
	t.files[low] = rel
	for i := range len(low) {
		if low[i] == '/' {
			t.dirs[low[:i]] = rel
		}
	}
	return ""
}
