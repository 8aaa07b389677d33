package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/BurntSushi/toml"

	"github.com/mcpc-dev/mcpc/internal/jsonpos"
	"github.com/mcpc-dev/mcpc/internal/schemamsg"
	"github.com/mcpc-dev/mcpc/internal/shellwords"
)

// The readers of other apps' formats. Each turns an app's entry into an
// mcpc Server with the app's interpolation rewritten to ${VAR}, and says in
// notes what did not carry over. Secrets and validation are the target's
// business (import.go): they depend on where the entry is written.

// rawEntry is the union of the JSON apps' server fields.
type rawEntry struct {
	Type      string            `json:"type"`
	Command   string            `json:"command"`
	Args      []string          `json:"args"`
	Env       map[string]string `json:"env"`
	Cwd       string            `json:"cwd"`
	URL       string            `json:"url"`
	ServerURL string            `json:"serverUrl"` // Windsurf
	HTTPURL   string            `json:"httpUrl"`   // Gemini: Streamable HTTP
	Headers   map[string]string `json:"headers"`
	Disabled  bool              `json:"disabled"`
	EnvFile   string            `json:"envFile"`
	// Gemini CLI's tool filters, which mcpc reads under the same names.
	IncludeTools []string `json:"includeTools"`
	ExcludeTools []string `json:"excludeTools"`
	// Claude Code's credential helper: a shell command printing headers.
	HeadersHelper string `json:"headersHelper"`
}

// carried are the keys rawEntry reads; any other key is named in a note.
var carried = sync.OnceValue(jsonKeys[rawEntry])

// parseJSONApp reads the servers of a JSON app file: mcpServers (or VS
// Code's servers, or Claude Code's projects[DIR].mcpServers for local
// scope), each at its line.
func parseJSONApp(f *ImportFile, data []byte) error {
	if err := checkImportShape(f.Path, data, false); err != nil {
		return err
	}
	data = stripJSONC(data)
	if err := checkSyntax(data); err != nil {
		line, col := jsonpos.LineCol(data, syntaxOffset(data, err))
		return fmt.Errorf("%s:%d:%d: invalid JSON: %s", f.Path, line, col, strings.TrimPrefix(err.Error(), "json: "))
	}
	top, err := scanObject(data, int64(bytes.IndexByte(data, '{')))
	if err != nil {
		return fmt.Errorf("%s: the top level must be an object", f.Path)
	}
	key := "mcpServers"
	if f.App == AppVSCode {
		key = "servers"
	}
	if f.Scope == "local" {
		if top = localProject(f, data, top); top == nil {
			return nil
		}
	}
	var inputs map[string]string
	if f.App == AppVSCode {
		inputs = vscodeInputs(data, top)
	}
	i := top.find(key)
	if i < 0 {
		return nil
	}
	servers, err := scanObject(data, top.members[i].valStart)
	if err != nil {
		line, _ := jsonpos.LineCol(data, top.members[i].valStart)
		return fmt.Errorf("%s:%d: %q is not an object", f.Path, line, key)
	}
	at := lines{data: data}
	for _, m := range servers.members {
		e := &ImportEntry{Name: m.key, Line: at.at(m.keyStart)}
		f.Entries = append(f.Entries, e)
		if e.Name, e.Skip = importName(m.key); e.Skip != "" {
			continue
		}
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(data[m.valStart:m.valEnd], &fields); err != nil {
			e.Skip = "the entry is not an object"
			continue
		}
		var r rawEntry
		if err := json.Unmarshal(data[m.valStart:m.valEnd], &r); err != nil {
			e.Skip = typeErrText(err)
			continue
		}
		var dropped []string
		for _, k := range slices.Sorted(maps.Keys(fields)) {
			if !slices.Contains(carried(), k) || k == "serverUrl" && f.App != AppWindsurf || k == "httpUrl" && f.App != AppGemini || k == "headersHelper" && f.App != AppClaudeCode {
				dropped = append(dropped, k)
			}
		}
		convertJSON(f.App, e, &r, dropped)
		if f.App == AppVSCode {
			noteInputs(e, data[m.valStart:m.valEnd], inputs)
		}
	}
	return nil
}

// maxNameShown is how much of a name too long for a server is shown.
const maxNameShown = 40

// importName is the name an app gave an entry, and why it is skipped
// when no server can have it: a name past validName's 128 bytes is shown
// cut (a megabyte of it in a note and in the JSON outcome would say
// nothing more), with its length, and the others go on.
func importName(key string) (name, skip string) {
	if len(key) <= maxServerName {
		return key, ""
	}
	// A rune cut in two is dropped, not shown as a broken byte.
	return strings.ToValidUTF8(key[:maxNameShown], "") + "…", fmt.Sprintf("a name of %d bytes: a server's name is at most %d", len(key), maxServerName)
}

// localProject is the object of the project f names in Claude Code's
// projects, which it keys by the directory it ran in: the working directory
// or one above it. It is nil when there is none; f.Project becomes its key.
func localProject(f *ImportFile, data []byte, top *object) *object {
	i := top.find("projects")
	if i < 0 {
		return nil
	}
	projects, err := scanObject(data, top.members[i].valStart)
	if err != nil {
		return nil
	}
	j := -1
	for dir := filepath.Clean(f.Project); j < 0; dir = filepath.Dir(dir) {
		if j = projects.find(dir); j >= 0 || dir == filepath.Dir(dir) {
			break
		}
	}
	if j < 0 {
		return nil
	}
	f.Project = projects.members[j].key
	project, err := scanObject(data, projects.members[j].valStart)
	if err != nil {
		return nil
	}
	return project
}

// vscodeInputs are the descriptions of VS Code's "inputs" (the values it
// prompts for), by id.
func vscodeInputs(data []byte, top *object) map[string]string {
	i := top.find("inputs")
	if i < 0 {
		return nil
	}
	var list []struct {
		ID          string `json:"id"`
		Description string `json:"description"`
	}
	if json.Unmarshal(data[top.members[i].valStart:top.members[i].valEnd], &list) != nil {
		return nil
	}
	m := map[string]string{}
	for _, in := range list {
		m[in.ID] = in.Description
	}
	return m
}

// noteInputs says what each ${input:ID} the entry uses was for.
func noteInputs(e *ImportEntry, raw []byte, inputs map[string]string) {
	for _, m := range interpRE().FindAllSubmatch(raw, -1) {
		if id, ok := strings.CutPrefix(string(m[1]), "input:"); ok && inputs[id] != "" {
			e.note("VS Code prompted for %s: %q", exportName(id), inputs[id])
		}
	}
}

// convertJSON makes e.Server from r, by the rules of app.
func convertJSON(app string, e *ImportEntry, r *rawEntry, dropped []string) {
	s := &Server{Command: r.Command, Args: r.Args, Env: r.Env, Cwd: r.Cwd, Headers: r.Headers,
		IncludeTools: r.IncludeTools, ExcludeTools: r.ExcludeTools}
	e.Server, e.Disabled = s, r.Disabled
	sse := r.Type == "sse"
	switch {
	case app == AppWindsurf && r.ServerURL != "":
		s.URL = r.ServerURL
	case app == AppGemini && r.HTTPURL != "":
		s.URL = r.HTTPURL
	case app == AppGemini && r.URL != "":
		// Gemini CLI's "url" is the HTTP+SSE transport, "httpUrl" Streamable HTTP.
		s.URL, sse = r.URL, r.Type != "http" && r.Type != "streamable-http"
	default:
		s.URL = r.URL
	}
	if r.Type != "" && !slices.Contains([]string{"stdio", "http", "streamable-http", "streamableHttp", "sse"}, r.Type) {
		e.Skip = fmt.Sprintf("type %q is a transport mcpc does not speak", r.Type)
		return
	}
	if sse && s.URL != "" {
		e.note("%s marks it as the old HTTP+SSE transport (2024-11-05); its url is kept, and mcpc reaches it once it speaks that transport", appTitle(app))
	}
	if r.HeadersHelper != "" && app == AppClaudeCode {
		importHeadersHelper(e, r.HeadersHelper)
	}
	if r.EnvFile != "" {
		e.note("its envFile %s is not carried over: set those variables in the environment, or in \"env\" as ${VAR}", r.EnvFile)
	}
	if len(dropped) > 0 {
		e.note("not carried over: %s", strings.Join(dropped, ", "))
	}
	rewriteVars(app, e)
}

// importHeadersHelper makes Claude Code's headersHelper, a command line
// its shell runs, the entry's "headersCommand": the words themselves when
// they are plain words, else the same line through sh -c, as Claude Code
// runs it. A helper written for Claude Code may read the server's name
// from its variables, which mcpc names otherwise.
func importHeadersHelper(e *ImportEntry, line string) {
	if e.Server.URL == "" {
		e.note("its headersHelper is not carried over: it applies to HTTP servers only")
		return
	}
	argv, err := shellwords.Split(line)
	if err != nil || len(argv) == 0 || strings.ContainsAny(line, "|&;<>()$`*?[]{}~#!\n\\") {
		argv = []string{"sh", "-c", line}
	}
	e.Server.HeadersCommand = argv
	e.note("its headersHelper became \"headersCommand\": mcpc tells it the server in MCPC_SERVER_NAME and MCPC_SERVER_URL (Claude Code: CLAUDE_CODE_MCP_SERVER_NAME and CLAUDE_CODE_MCP_SERVER_URL)")
}

// interpRE matches ${...}: ${VAR}, ${VAR:-default}, ${env:VAR},
// ${input:ID}, ${workspaceFolder} and the other editor variables.
var interpRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\$\{([^}]*)\}`) })

// geminiVarRE is Gemini CLI's $VAR in env values.
var geminiVarRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\$([A-Za-z_][A-Za-z0-9_]*)`) })

// rewriteVars turns every app's interpolation into mcpc's ${VAR}. What has
// no mcpc equivalent (VS Code's ${input:ID} prompts, ${workspaceFolder},
// Cursor's ${userHome}) becomes ${ID} with a note naming what to export;
// where it lands outside env and headers validation skips the entry.
func rewriteVars(app string, e *ImportEntry) {
	s := e.Server
	noted := map[string]bool{}
	one := func(v string) string {
		return interpRE().ReplaceAllStringFunc(v, func(m string) string {
			inner := m[2 : len(m)-1]
			switch ns, name, ok := strings.Cut(inner, ":"); {
			case ns == "env" && ok && validEnvName(name):
				return "${" + name + "}"
			case app == AppClaudeCode || app == AppClaudeDesktop || app == AppGemini || app == AppCodex:
				return m // already ${VAR} or ${VAR:-default}
			case validEnvName(inner) && inner == strings.ToUpper(inner):
				return m // a plain ${VAR}: the same in mcpc
			default:
				id := inner
				if ok && (ns == "input" || ns == "env") {
					id = name
				}
				v := exportName(id)
				if !noted[v] {
					noted[v] = true
					e.note("%s has no mcpc equivalent: it reads ${%s}; export %s", m, v, v)
				}
				return "${" + v + "}"
			}
		})
	}
	// mcpc expands nothing outside env and headers: a variable there makes
	// the entry one mcpc cannot run as the app did.
	outside := func(field, v string) string {
		if m := interpRE().FindString(v); m != "" && e.varIn == "" {
			e.varIn = fmt.Sprintf("%s in %q", m, field)
		}
		return one(v)
	}
	s.Command, s.Cwd, s.URL = outside("command", s.Command), outside("cwd", s.Cwd), outside("url", s.URL)
	for i, a := range s.Args {
		s.Args[i] = outside("args", a)
	}
	for _, k := range slices.Sorted(maps.Keys(s.Env)) {
		v := s.Env[k]
		if app == AppGemini && !strings.Contains(v, "${") {
			v = geminiVarRE().ReplaceAllString(v, "$${$1}")
		}
		s.Env[k] = one(v)
	}
	for _, k := range slices.Sorted(maps.Keys(s.Headers)) {
		s.Headers[k] = one(s.Headers[k])
	}
}

// exportName is id as an environment variable name: upper-cased, every
// other character than a letter, digit or '_' as '_'.
func exportName(id string) string {
	b := []byte(strings.ToUpper(id))
	for i, c := range b {
		if !isWordByte(c) {
			b[i] = '_'
		}
	}
	if len(b) == 0 || b[0] >= '0' && b[0] <= '9' {
		b = append([]byte{'_'}, b...)
	}
	return string(b)
}

// codexServer is one [mcp_servers.NAME] table of Codex's config.toml.
type codexServer struct {
	Command           string            `toml:"command"`
	Args              []string          `toml:"args"`
	Env               map[string]string `toml:"env"`
	Cwd               string            `toml:"cwd"`
	URL               string            `toml:"url"`
	BearerTokenEnvVar string            `toml:"bearer_token_env_var"`
	HTTPHeaders       map[string]string `toml:"http_headers"`
	EnvHTTPHeaders    map[string]string `toml:"env_http_headers"`
	Enabled           *bool             `toml:"enabled"`
}

// parseCodex reads Codex's TOML: [mcp_servers.NAME] tables.
func parseCodex(f *ImportFile, data []byte) error {
	var doc struct {
		Servers map[string]toml.Primitive `toml:"mcp_servers"`
	}
	if err := checkImportShape(f.Path, data, true); err != nil {
		return err
	}
	md, err := toml.Decode(string(data), &doc)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return fmt.Errorf("%s:%d: invalid TOML: %s", f.Path, pe.Position.Line, pe.Message)
		}
		return fmt.Errorf("%s: invalid TOML: %v", f.Path, err)
	}
	// The tables in the order the file has them, each at its header line.
	headers := codexHeaders(data)
	names := slices.Collect(maps.Keys(doc.Servers))
	lineOf := map[string]int{}
	for _, name := range names {
		lineOf[name] = headers[strings.Join(strings.Fields(name), "")]
	}
	slices.SortFunc(names, func(a, b string) int { return cmpLine(lineOf[a], lineOf[b], a, b) })
	for _, name := range names {
		e := &ImportEntry{Name: name, Line: lineOf[name]}
		f.Entries = append(f.Entries, e)
		if e.Name, e.Skip = importName(name); e.Skip != "" {
			continue
		}
		var c codexServer
		if err := md.PrimitiveDecode(doc.Servers[name], &c); err != nil {
			e.Skip = strings.TrimPrefix(err.Error(), "toml: ")
			continue
		}
		s := &Server{Command: c.Command, Args: c.Args, Env: c.Env, Cwd: c.Cwd, URL: c.URL, BearerTokenEnv: c.BearerTokenEnvVar}
		e.Server = s
		e.Disabled = c.Enabled != nil && !*c.Enabled
		for h, v := range c.HTTPHeaders {
			if s.Headers == nil {
				s.Headers = map[string]string{}
			}
			s.Headers[h] = v
		}
		for h, v := range c.EnvHTTPHeaders {
			if s.Headers == nil {
				s.Headers = map[string]string{}
			}
			s.Headers[h] = "${" + v + "}"
		}
	}
	// The keys of each server that no field read (known once all are
	// decoded), found in one pass: the list is the whole file's, and
	// reading it per server was quadratic.
	dropped := map[string][]string{}
	for _, k := range md.Undecoded() {
		if len(k) == 3 && k[0] == "mcp_servers" {
			dropped[k[1]] = append(dropped[k[1]], k[2])
		}
	}
	for _, e := range f.Entries {
		if d := dropped[e.Name]; len(d) > 0 && e.Server != nil {
			slices.Sort(d)
			e.note("not carried over: %s", strings.Join(d, ", "))
		}
	}
	return nil
}

func cmpLine(la, lb int, a, b string) int {
	if la != lb {
		return la - lb
	}
	return strings.Compare(a, b)
}

// codexHeaders are the lines of the [mcp_servers.NAME] headers (NAME bare
// or quoted; the first of each), by NAME without blanks: a table written
// some other way (dotted keys, an inline table) has none.
func codexHeaders(data []byte) map[string]int {
	lines := map[string]int{}
	for n, l := range strings.Split(string(data), "\n") {
		rest, ok := strings.CutPrefix(strings.Join(strings.Fields(l), ""), "[mcp_servers.")
		if !ok || rest == "" {
			continue
		}
		var name string
		if q := rest[0]; q == '"' || q == '\'' {
			end := strings.IndexByte(rest[1:], q)
			if end < 0 {
				continue
			}
			name, rest = rest[1:1+end], rest[2+end:]
		} else {
			end := strings.IndexFunc(rest, func(r rune) bool { return r > 0x7f || !isWordByte(byte(r)) && r != '-' })
			if end < 0 {
				continue
			}
			name, rest = rest[:end], rest[end:]
		}
		if _, seen := lines[name]; !seen && strings.HasPrefix(rest, "]") {
			lines[name] = n + 1
		}
	}
	return lines
}

// stripJSONC blanks out the comments and trailing commas VS Code, Cursor
// and Gemini CLI allow in their JSON files, keeping every other byte (and
// every newline) where it was, so lines and columns stay right.
func stripJSONC(data []byte) []byte {
	if !bytes.Contains(data, []byte("/")) && !bytes.Contains(data, []byte(",")) {
		return data
	}
	out := bytes.Clone(data)
	var text schemamsg.Strings
	lastComma := -1
	for i := 0; i < len(out); i++ {
		c := out[i]
		switch {
		case !text.Outside(c):
			lastComma = -1 // a string: a value, or a key, came after the comma
		case c == '/' && i+1 < len(out) && out[i+1] == '/':
			for ; i < len(out) && out[i] != '\n'; i++ {
				out[i] = ' '
			}
		case c == '/' && i+1 < len(out) && out[i+1] == '*':
			end := bytes.Index(out[i+2:], []byte("*/"))
			stop := len(out)
			if end >= 0 {
				stop = i + 2 + end + 2
			}
			for ; i < stop; i++ {
				if out[i] != '\n' {
					out[i] = ' '
				}
			}
			i--
		case c == ',':
			lastComma = i
		case c == '}' || c == ']':
			if lastComma >= 0 {
				out[lastComma] = ' '
			}
			lastComma = -1
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
		default:
			lastComma = -1
		}
	}
	return out
}

func appTitle(app string) string {
	switch app {
	case AppClaudeDesktop:
		return "Claude Desktop"
	case AppClaudeCode:
		return "Claude Code"
	case AppCursor:
		return "Cursor"
	case AppVSCode:
		return "VS Code"
	case AppWindsurf:
		return "Windsurf"
	case AppCodex:
		return "Codex"
	case AppGemini:
		return "Gemini CLI"
	}
	return app
}
