package skills

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"slices"
	"strings"

	"github.com/tidwall/gjson"
	"go.yaml.in/yaml/v3"

	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/rawmsg"
	"github.com/mcpc-dev/mcpc/internal/units"
)

// Fetch reads the skill's SKILL.md and verifies it: its size and digest
// against the entry's, then its YAML frontmatter field by field against
// the entry's frontmatter. With all, every other listed file follows, in
// the entry's order, each verified before the next is read. The first
// mismatch ends it: nothing after it is read.
//
// A dynamic skill ("resources": "dynamic") has nothing to verify against
// but its frontmatter; its other files are found with
// resources/directory/read, which only a server declaring directoryRead
// is sent, and bounded by the SEP's limits as they are read.
func Fetch(ctx context.Context, s Conn, e *Entry, all bool) ([]Fetched, error) {
	if e.Dynamic {
		return fetchDynamic(ctx, s, e, all)
	}
	var out []Fetched
	for i, f := range e.Files {
		if i > 0 && !all {
			break
		}
		got, err := read(ctx, s, f, messageLimit(f.Size))
		if errors.Is(err, ErrOverLimit) {
			return nil, mismatch(s.Label(), e, f, "is larger than the listing's %d bytes: its answer passed %d bytes, and was read no further", f.Size, messageLimit(f.Size))
		}
		if err != nil {
			return nil, err
		}
		if err := verify(s.Label(), e, got); err != nil {
			return nil, err
		}
		if i == 0 {
			if err := sameFrontmatter(s.Label(), e, got.Data); err != nil {
				return nil, err
			}
		}
		out = append(out, got)
	}
	return out, nil
}

// read sends resources/read for one file and takes its bytes: the
// contents item for its URI (or the only one), text or base64 blob. The
// answer is read up to limit bytes (ErrOverLimit past them).
func read(ctx context.Context, s Conn, f File, limit int64) (Fetched, error) {
	raw, err := s.Read(ctx, f.URI, limit)
	if err != nil {
		return Fetched{}, err
	}
	// The answer is read where it lies: decoded into values, a 15 MiB
	// file was held three times over before its first check. What the
	// SDK decoded of it is garbage by now: collected first, its memory
	// holds the file's bytes (left to the collector's pace, a 15 MiB
	// SKILL.md peaked at 62 or 77 MiB, by when it ran; now at 62).
	if len(raw) > largeRead {
		runtime.GC()
	}
	contents := rawmsg.View(raw).Get("contents").Array()
	var it gjson.Result
	for _, c := range contents {
		if c.IsObject() && (c.Get("uri").Str == f.URI || len(contents) == 1) {
			it = c
			break
		}
	}
	got := Fetched{File: f, Content: rawmsg.Within(raw, it)}
	switch text, blob := it.Get("text"), it.Get("blob"); {
	case text.Type == gjson.String:
		got.Data = rawmsg.StringBytes(raw, text)
	case blob.Type == gjson.String:
		if got.Data, err = base64.StdEncoding.DecodeString(blob.Str); err != nil {
			return got, fail.New(fail.Protocol, "", "%s sent %s as a blob that is not base64", s.Label(), f.URI)
		}
	default:
		return got, fail.New(fail.Protocol, "", "%s answered resources/read of %s with no contents for it", s.Label(), f.URI)
	}
	return got, nil
}

// largeRead is the answer past which read collects the SDK's copies of
// it before its own: below it, a collection costs more than it saves.
const largeRead = 4 << 20

// mismatch is the failure of a file that is not what the entry promised.
func mismatch(label string, e *Entry, f File, format string, args ...any) error {
	return fail.New(fail.Protocol, "the skill changed after it was listed, or something on the way rewrote it; nothing was written and no further file read: run the command again to fetch the current listing",
		"skill %q from %s failed verification: %s %s", e.Name, label, f.Path, fmt.Sprintf(format, args...))
}

// verify checks a file's bytes against its entry: the size first (a
// truncated or padded read fails without hashing), then the digest.
func verify(label string, e *Entry, got Fetched) error {
	if n := int64(len(got.Data)); n != got.Size {
		return mismatch(label, e, got.File, "is %d bytes, the listing says %d", n, got.Size)
	}
	sum := sha256.Sum256(got.Data)
	if d := "sha256:" + hex.EncodeToString(sum[:]); d != got.Digest {
		return mismatch(label, e, got.File, "has digest %s, the listing says %s", d, got.Digest)
	}
	return nil
}

// sameFrontmatter compares SKILL.md's YAML frontmatter with the entry's,
// field by field, both as JSON values.
func sameFrontmatter(label string, e *Entry, data []byte) error {
	f := File{URI: e.URI, Path: "SKILL.md"}
	file, err := Frontmatter(data)
	var r refused
	switch {
	case errors.As(err, &r):
		return fail.New(fail.Protocol, fmt.Sprintf("mcpc reads frontmatter of at most %s and expands no YAML aliases; nothing was written and no further file read: ask the skill's authors to write it plainly", units.SizeText(MaxFrontmatter)),
			"skill %q from %s is refused: SKILL.md %v", e.Name, label, err)
	case err != nil:
		return mismatch(label, e, f, "%v", err)
	}
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range file {
			yield(k)
		}
		for k := range e.Frontmatter {
			if _, dup := file[k]; !dup {
				yield(k)
			}
		}
	})
	for _, k := range keys {
		a, inFile := file[k]
		b, inEntry := e.Frontmatter[k]
		switch {
		case !inFile:
			return mismatch(label, e, f, "has no frontmatter field %q, the listing has %s", k, show(b))
		case !inEntry:
			return mismatch(label, e, f, "has frontmatter field %q (%s), the listing has none", k, show(a))
		case !reflect.DeepEqual(a, b):
			return mismatch(label, e, f, "has frontmatter field %q %s, the listing says %s", k, show(a), show(b))
		}
	}
	return nil
}

// show writes a frontmatter value for a message: JSON (which escapes
// control characters), shortened.
func show(v any) string {
	b, _ := json.Marshal(v)
	if s := []rune(string(b)); len(s) > 80 {
		return string(s[:77]) + "..."
	}
	return string(b)
}

// MaxFrontmatter bounds the YAML frontmatter of a SKILL.md, checked before
// it is parsed: YAML takes many times its text in memory (15 MiB of it took
// 949 MiB). Neither the skills SEP nor the Agent Skills specification sets
// a bound on the whole; they bound its fields (name 64 characters,
// description 1024, compatibility 500), and metadata is a small map of
// strings. 64 KiB holds those many times over, and parses in a few MiB.
const MaxFrontmatter = 64 << 10

// refused is a frontmatter mcpc will not parse: over MaxFrontmatter, or
// with a YAML alias. Not a mismatch with the listing: the file may be just
// what the server meant.
type refused struct{ error }

// Frontmatter parses the YAML frontmatter at the start of a SKILL.md (a
// byte-order mark aside) into JSON values: numbers as float64, as the
// entry's frontmatter decodes; a timestamp stays the text written. Of
// data, only the first line and MaxFrontmatter bytes after it are looked
// at; an alias is refused (a refused error), never expanded.
func Frontmatter(data []byte) (map[string]any, error) {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	first, rest, ok := bytes.Cut(data, []byte("\n"))
	if !ok || string(bytes.TrimRight(first, "\r")) != "---" {
		return nil, fmt.Errorf("does not begin with YAML frontmatter (a --- line)")
	}
	// The block ends before the closing line, which starts within
	// MaxFrontmatter bytes; the newline before it is not the block's.
	end := -1
	for at := 0; at <= len(rest) && at <= MaxFrontmatter; {
		line, _, more := bytes.Cut(rest[at:], []byte("\n"))
		if string(bytes.TrimRight(line, " \t\r")) == "---" {
			end = max(at-1, 0)
			break
		}
		if !more {
			return nil, fmt.Errorf("has frontmatter that never ends (no closing --- line)")
		}
		at += len(line) + 1
	}
	if end < 0 {
		return nil, refused{fmt.Errorf("has frontmatter of more than %s (no closing --- line within %d bytes)", units.SizeText(MaxFrontmatter), MaxFrontmatter)}
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(rest[:end], &doc); err != nil {
		return nil, fmt.Errorf("has frontmatter that is not YAML: %v", err)
	}
	v, err := plain(&doc, 0)
	if err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("has frontmatter that is not a mapping")
	}
	// Through JSON, so that numbers compare as the entry's do.
	b, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("has frontmatter that JSON cannot hold: %v", err)
	}
	var out map[string]any
	err = json.NewDecoder(bytes.NewReader(b)).Decode(&out)
	return out, err
}

// plain turns a YAML node into the value JSON would hold. An alias is
// refused: followed, ten aliases of ten aliases nine levels deep are a
// billion values from a few hundred bytes, and no depth bound stops that.
func plain(n *yaml.Node, depth int) (any, error) {
	if depth > 64 {
		return nil, fmt.Errorf("has frontmatter that JSON cannot hold: nested more than 64 levels deep")
	}
	switch n.Kind {
	case 0: // an empty document
		return map[string]any{}, nil
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return map[string]any{}, nil
		}
		return plain(n.Content[0], depth+1)
	case yaml.AliasNode:
		// Lines count from the file's first: the opening --- is line 1.
		return nil, refused{fmt.Errorf("has frontmatter with a YAML alias (*%s, line %d), which mcpc does not expand", n.Value, n.Line+1)}
	case yaml.SequenceNode:
		out := []any{}
		for _, c := range n.Content {
			v, err := plain(c, depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case yaml.MappingNode:
		out := map[string]any{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			// The value first: a merge (<<: *x) is refused for its alias.
			k := n.Content[i]
			v, err := plain(n.Content[i+1], depth+1)
			if err != nil {
				return nil, err
			}
			if k.Kind != yaml.ScalarNode || k.ShortTag() != "!!str" && k.ShortTag() != "!!int" && k.ShortTag() != "!!bool" {
				return nil, fmt.Errorf("has frontmatter that JSON cannot hold: a key that is not a string (line %d)", k.Line+1)
			}
			out[k.Value] = v
		}
		return out, nil
	}
	if n.ShortTag() == "!!timestamp" {
		return n.Value, nil
	}
	var v any
	if err := n.Decode(&v); err != nil {
		return nil, fmt.Errorf("has frontmatter that JSON cannot hold: %v", err)
	}
	return v, nil
}

// fetchDynamic reads a dynamic skill: SKILL.md, its frontmatter checked;
// with all, the files resources/directory/read finds under its directory.
func fetchDynamic(ctx context.Context, s Conn, e *Entry, all bool) ([]Fetched, error) {
	if all {
		// Only a server that declares directoryRead is sent it.
		if s.Extension(Extension).Get("directoryRead").Type != gjson.True {
			return nil, fail.New(fail.Rejected, "leave out --out to print its SKILL.md",
				"skill %q from %s is served dynamically: it lists no files, and the server offers no resources/directory/read (directoryRead) to find them", e.Name, s.Label())
		}
	}
	skill, err := read(ctx, s, File{URI: e.URI, Path: "SKILL.md"}, messageLimit(MaxBytes))
	if errors.Is(err, ErrOverLimit) {
		return nil, overSkill(s.Label(), e)
	}
	if err != nil {
		return nil, err
	}
	if err := sameFrontmatter(s.Label(), e, skill.Data); err != nil {
		return nil, err
	}
	out := []Fetched{skill}
	if !all {
		return out, nil
	}
	total := int64(len(skill.Data))
	var tree layout
	tree.add(e.Root, "SKILL.md")
	dirs := []string{strings.TrimSuffix(e.Root, "/")}
	for visited := 0; len(dirs) > 0; visited++ {
		if visited >= MaxFiles {
			return nil, fail.New(fail.Protocol, "", "skill %q from %s has more than %d directories", e.Name, s.Label(), MaxFiles)
		}
		dir := dirs[0]
		dirs = dirs[1:]
		pgs, err := pages(ctx, s, "resources/directory/read", map[string]any{"uri": dir}, MaxBytes)
		if err != nil {
			return nil, err
		}
		for _, p := range pgs {
			var page struct {
				Resources []struct {
					URI      string `json:"uri"`
					MIMEType string `json:"mimeType"`
				} `json:"resources"`
			}
			json.Unmarshal(p, &page)
			for _, r := range page.Resources {
				rel, ok := strings.CutPrefix(r.URI, e.Root)
				switch {
				case !ok || !LocalPath(rel):
					return nil, fail.New(fail.Protocol, "", "%s lists %s in the directory of skill %q: outside it", s.Label(), r.URI, e.Name)
				case r.MIMEType == "inode/directory":
					dirs = append(dirs, r.URI)
					continue
				case rel == "SKILL.md":
					continue
				case len(out) >= MaxFiles:
					return nil, fail.New(fail.Protocol, "", "skill %q from %s has more than %d files, the most a skill may have", e.Name, s.Label(), MaxFiles)
				}
				if clash := tree.add(e.Root, rel); clash != "" {
					return nil, fail.New(fail.Protocol, "the server's skill is unusable; nothing was written", "%s serves a skill %s %s", s.Label(), e.URI, clash)
				}
				got, err := read(ctx, s, File{URI: r.URI, Path: rel}, messageLimit(MaxBytes-total))
				if errors.Is(err, ErrOverLimit) {
					return nil, overSkill(s.Label(), e)
				}
				if err != nil {
					return nil, err
				}
				if total += int64(len(got.Data)); total > MaxBytes {
					return nil, overSkill(s.Label(), e)
				}
				got.Size = int64(len(got.Data))
				out = append(out, got)
			}
		}
	}
	return out, nil
}

// overSkill is the failure of a dynamic skill that holds more than a skill
// may.
func overSkill(label string, e *Entry) error {
	return fail.New(fail.Protocol, "", "skill %q from %s holds more than %d bytes (16 MiB), the most a skill may hold", e.Name, label, MaxBytes)
}
