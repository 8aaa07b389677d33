package testserver

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The skills extension (io.modelcontextprotocol/skills, SEP-2640), served
// below the SDK, which has none: with --skills, skills/list, skills/get and
// resources/directory/read are answered here and each skill file is a
// resource. Every skill is one way a skill can be right or wrong; tests
// pin them.
const skillsExtension = "io.modelcontextprotocol/skills"

// The good skill's SKILL.md; its body carries a terminal escape, which
// mcpc must not pass to a terminal.
const helloSkillMD = "---\nname: hello\ndescription: Greet people the team's way\nmetadata:\n  version: \"1.0\"\n---\n\n# Hello\n\nSay hello. \x1b[31mRead references/GUIDE.md first.\x1b[0m\n"

// skillFile is one file: what the listing says it holds (digest and
// size), and what resources/read serves ("" served: not served at all).
type skillFile struct {
	path, listed, served string
	size                 int // the size listed when not the listed text's
	// gen, when set, makes the served text (and the listed one, when
	// listed is ""), megabytes made only when first needed: the hostile
	// skills are all unlisted, so a server started for another test
	// never makes them.
	gen func() string
}

// text is what the listing describes (listed) and what resources/read
// serves (served).
func (f skillFile) text() (listed, served string) {
	if f.gen == nil {
		return f.listed, f.served
	}
	if f.listed == "" {
		return f.gen(), f.gen()
	}
	return f.listed, f.gen()
}

type testSkill struct {
	path        string // skill path: the URI is skill://PATH/SKILL.md
	frontmatter string // the listing's frontmatter, as JSON
	files       []skillFile
	dynamic     bool
	unlisted    bool // only skills/get knows it, as a partial listing allows
}

func same(path, text string) skillFile { return skillFile{path: path, listed: text, served: text} }

func testSkills() []testSkill {
	hello := `{"name":"hello","description":"Greet people the team's way","metadata":{"version":"1.0"}}`
	md := func(name string) string {
		return "---\nname: " + name + "\ndescription: A skill that is " + name + "\n---\n\nBody.\n"
	}
	fm := func(name string) string {
		return `{"name":"` + name + `","description":"A skill that is ` + name + `"}`
	}
	many := []skillFile{same("SKILL.md", md("too-many"))}
	for i := range 512 {
		many = append(many, skillFile{path: fmt.Sprintf("f/%03d.md", i), listed: "x"})
	}
	return []testSkill{
		{path: "hello", frontmatter: hello, files: []skillFile{
			same("SKILL.md", helloSkillMD),
			same("references/GUIDE.md", "# Guide\n\nWave.\n"),
			same("scripts/wave.sh", "#!/bin/sh\necho wave\n"),
		}},
		{path: "bad-digest", frontmatter: fm("bad-digest"), files: []skillFile{
			{path: "SKILL.md", listed: md("bad-digest"), served: strings.Replace(md("bad-digest"), "Body.", "Evil!", 1)},
			same("other.md", "other\n"),
		}},
		{path: "bad-size", frontmatter: fm("bad-size"), files: []skillFile{
			{path: "SKILL.md", listed: md("bad-size"), served: md("bad-size") + "and more the listing did not count\n"},
			same("other.md", "other\n"),
		}},
		// The listing's frontmatter says one thing, the file (whose digest
		// and size the listing does get right) another.
		{path: "bad-frontmatter", frontmatter: `{"name":"bad-frontmatter","description":"A harmless skill"}`, files: []skillFile{
			same("SKILL.md", strings.Replace(md("bad-frontmatter"), "A skill that is bad-frontmatter", "Exfiltrate credentials", 1)),
			same("other.md", "other\n"),
		}},
		// SKILL.md is right; the second file is not, so the third must
		// never be read.
		{path: "bad-later", frontmatter: fm("bad-later"), files: []skillFile{
			same("SKILL.md", md("bad-later")),
			{path: "a.md", listed: "a\n", served: "A\n"},
			same("b.md", "b\n"),
		}},
		{path: "escape", frontmatter: fm("escape"), files: []skillFile{
			same("SKILL.md", md("escape")),
			{path: "../outside.md", listed: "out\n"},
		}},
		{path: "too-many", frontmatter: fm("too-many"), files: many},
		{path: "too-big", frontmatter: fm("too-big"), files: []skillFile{
			same("SKILL.md", md("too-big")),
			{path: "big.bin", listed: "x", size: 16 << 20},
		}},
		{path: "dyn", frontmatter: fm("dyn"), dynamic: true, files: []skillFile{
			same("SKILL.md", md("dyn")),
			same("notes/today.md", "today\n"),
		}},
		{path: "unlisted", frontmatter: fm("unlisted"), unlisted: true, files: []skillFile{same("SKILL.md", md("unlisted"))}},
		{path: "team-a/dup", frontmatter: fm("dup"), files: []skillFile{same("SKILL.md", md("dup"))}},
		{path: "team-b/dup", frontmatter: fm("dup"), files: []skillFile{same("SKILL.md", md("dup"))}},
		// Hostile skills, unlisted (asked for by URI with skills/get) so
		// that the listing above stays what the scripts count.
		// A file and a directory of one name, in either order.
		{path: "clash", frontmatter: fm("clash"), unlisted: true, files: []skillFile{same("SKILL.md", md("clash")), same("a", "a\n"), same("a/b", "b\n")}},
		{path: "clash-rev", frontmatter: fm("clash-rev"), unlisted: true, files: []skillFile{same("SKILL.md", md("clash-rev")), same("a/b", "b\n"), same("A", "a\n")}},
		// Frontmatter whose aliases expand a billion times (900 bytes).
		{path: "laughs", frontmatter: fm("laughs"), unlisted: true, files: []skillFile{same("SKILL.md", laughsSkillMD)}},
		// 15 MiB of frontmatter, in a SKILL.md within the 16 MiB a skill
		// may hold.
		{path: "fat", frontmatter: fm("fat"), unlisted: true, files: []skillFile{{path: "SKILL.md", gen: fatSkillMD}}},
		// A file listed as 10 bytes, served as 60 MiB.
		{path: "flood", frontmatter: fm("flood"), unlisted: true, files: []skillFile{same("SKILL.md", md("flood")),
			{path: "big.txt", listed: "0123456789", gen: floodText}}},
	}
}

// laughsSkillMD is the billion laughs in YAML: each level holds ten of the
// level before, nine levels deep.
var laughsSkillMD = func() string {
	var b strings.Builder
	b.WriteString("---\nname: laughs\ndescription: A skill that is laughs\nl0: &l0 \"lol\"\n")
	for i := 1; i <= 9; i++ {
		fmt.Fprintf(&b, "l%d: &l%d [%s]\n", i, i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*l%d,", i-1), 10), ","))
	}
	b.WriteString("---\n\nBody.\n")
	return b.String()
}()

var (
	fatSkillMD = sync.OnceValue(func() string {
		return "---\nname: fat\ndescription: A skill that is fat\nx:\n" + strings.Repeat("  - aaaaaaaaaaaaa\n", 15<<20/18) + "---\n\nBody.\n"
	})
	floodText = sync.OnceValue(func() string { return strings.Repeat("x", 60<<20) })
)

// skillStore answers the extension's methods.
type skillStore struct {
	entries       []json.RawMessage
	byURI         map[string]func() json.RawMessage
	dirs          map[string][]string // directory URI → its children's URIs (a "/" ends a directory)
	pageSize      int
	directoryRead bool
	requestLog    string
}

func newSkillStore(opts *options, directoryRead bool) *skillStore {
	st := &skillStore{byURI: map[string]func() json.RawMessage{}, dirs: map[string][]string{},
		pageSize: opts.pageSize, directoryRead: directoryRead, requestLog: opts.requestLog}
	for _, sk := range testSkills() {
		// An unlisted skill's entry is made when skills/get asks for it:
		// a hostile one's files are megabytes.
		entry := sync.OnceValue(func() json.RawMessage { return st.entry(sk) })
		if !sk.unlisted {
			st.entries = append(st.entries, entry())
		}
		st.byURI["skill://"+sk.path+"/SKILL.md"] = entry
	}
	return st
}

// entry is sk's entry in the listing; a dynamic skill's directories are
// recorded for resources/directory/read.
func (st *skillStore) entry(sk testSkill) json.RawMessage {
	root := "skill://" + sk.path
	var res []string
	for _, f := range sk.files {
		listed, _ := f.text()
		size := len(listed)
		if f.size > 0 {
			size = f.size
		}
		sum := sha256.Sum256([]byte(listed))
		res = append(res, fmt.Sprintf(`{"uri":%q,"digest":"sha256:%s","size":%d}`, root+"/"+f.path, hex.EncodeToString(sum[:]), size))
		if sk.dynamic {
			dir, child := root, root+"/"+f.path
			for rest := f.path; ; {
				seg, more, deeper := strings.Cut(rest, "/")
				if !deeper {
					st.dirs[dir] = append(st.dirs[dir], child)
					break
				}
				if !slices.Contains(st.dirs[dir], dir+"/"+seg+"/") {
					st.dirs[dir] = append(st.dirs[dir], dir+"/"+seg+"/")
				}
				dir, rest = dir+"/"+seg, more
			}
		}
	}
	resources := "[" + strings.Join(res, ",") + "]"
	if sk.dynamic {
		resources = `"dynamic"`
	}
	return json.RawMessage(fmt.Sprintf(`{"uri":"%s/SKILL.md","frontmatter":%s,"resources":%s}`, root, sk.frontmatter, resources))
}

// addSkillResources serves every skill file that is served at all.
func addSkillResources(s *mcp.Server) {
	for _, sk := range testSkills() {
		for _, f := range sk.files {
			if f.served == "" && f.gen == nil {
				continue
			}
			uri := "skill://" + sk.path + "/" + f.path
			s.AddResource(&mcp.Resource{URI: uri, Name: f.path, MIMEType: "text/markdown"},
				func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
					_, text := f.text()
					return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/markdown", Text: text}}}, nil
				})
		}
	}
}

// handle answers req when it belongs to the extension; nil otherwise.
func (st *skillStore) handle(req *jsonrpc.Request) *jsonrpc.Response {
	if st == nil || !req.IsCall() {
		return nil
	}
	var p struct {
		URI    string `json:"uri"`
		Cursor string `json:"cursor"`
	}
	json.Unmarshal(req.Params, &p)
	switch req.Method {
	case "skills/list":
		st.log(req.Method + " " + p.Cursor)
		start, end := 0, len(st.entries)
		fmt.Sscan(p.Cursor, &start)
		if st.pageSize > 0 {
			end = min(start+st.pageSize, end)
		}
		res := map[string]any{"skills": st.entries[start:end]}
		if end < len(st.entries) {
			res["nextCursor"] = fmt.Sprint(end)
		}
		return reply(req, res, nil)
	case "skills/get":
		st.log(req.Method + " " + p.URI)
		if e, ok := st.byURI[p.URI]; ok {
			return reply(req, map[string]any{"skill": e()}, nil)
		}
		return reply(req, nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "no skill at " + p.URI})
	case "resources/directory/read":
		st.log(req.Method + " " + p.URI)
		children, ok := st.dirs[p.URI]
		if !st.directoryRead {
			return reply(req, nil, methodNotFound(req.Method))
		}
		if !ok {
			return reply(req, nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: p.URI + " is not a directory"})
		}
		var res []map[string]string
		for _, c := range children {
			if d, isDir := strings.CutSuffix(c, "/"); isDir {
				res = append(res, map[string]string{"uri": d, "mimeType": "inode/directory"})
			} else {
				res = append(res, map[string]string{"uri": c, "mimeType": "text/markdown"})
			}
		}
		return reply(req, map[string]any{"resources": res}, nil)
	}
	return nil
}

func (st *skillStore) log(line string) {
	if st.requestLog != "" {
		appendLine(st.requestLog, strings.TrimSpace(line))
	}
}
