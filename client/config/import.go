package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"net/url"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcpc-dev/mcpc/internal/fsx"
)

// Import of other MCP hosts' servers ('mcpc config import'): the readers
// of their formats are in import_apps.go, where their files live in
// import_paths.go; here an entry is made fit for the file it goes to
// (secrets, validation) and written.

// ImportFile is one source file and the servers read from it.
type ImportFile struct {
	ImportSource
	Entries []*ImportEntry
	// Err: the file could not be read or parsed (with file:line), so none
	// of its servers can be imported.
	Err error
}

// ImportEntry is one server of another app, as mcpc would write it.
type ImportEntry struct {
	Name   string
	Line   int     // of the entry in its file; 0 when unknown
	Server *Server // nil when Skip says why it cannot be read
	// Disabled: the app has it switched off ("disabled": true, Codex's
	// enabled = false); it is imported only when asked for by name.
	Disabled bool
	Notes    []string // what was rewritten or left behind
	Skip     string   // why it cannot be imported; empty when it can
	// varIn names the first variable found outside env and headers, as
	// the app wrote it: `${workspaceFolder} in "args"`.
	varIn string
}

func (e *ImportEntry) note(format string, args ...any) {
	n := fmt.Sprintf(format, args...)
	if !slices.Contains(e.Notes, n) {
		e.Notes = append(e.Notes, n)
	}
}

// Where is the entry's place for messages: file:line.
func (e *ImportEntry) Where(f *ImportFile) string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d", f.Path, e.Line)
	}
	return f.Path
}

// ReadImport reads src (through the bounded reader) and its servers; a
// missing file is (nil, nil).
func ReadImport(src ImportSource) *ImportFile {
	data, err := fsx.ReadFile(src.Path, MaxConfigFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return &ImportFile{ImportSource: src, Err: fmt.Errorf("cannot read %s: %v", src.Path, err)}
	}
	return ParseImport(src, data)
}

// ParseImport reads the servers of data, a file in src.App's format.
func ParseImport(src ImportSource, data []byte) *ImportFile {
	f := &ImportFile{ImportSource: src}
	if src.App == AppCodex {
		f.Err = parseCodex(f, data)
	} else {
		f.Err = parseJSONApp(f, data)
	}
	if f.Err != nil {
		f.Entries = nil
	}
	return f
}

// DetectImportApp names the app whose format path is in: by its name and
// place first (the files each app writes), else by what it holds.
func DetectImportApp(path string, data []byte) (string, error) {
	base, dir := filepath.Base(path), filepath.Base(filepath.Dir(path))
	switch {
	case strings.HasSuffix(base, ".toml"):
		return AppCodex, nil
	case base == "claude_desktop_config.json":
		return AppClaudeDesktop, nil
	case base == ".claude.json" || base == ".mcp.json":
		return AppClaudeCode, nil
	case base == "mcp_config.json":
		return AppWindsurf, nil
	case base == "settings.json" && dir == ".gemini":
		return AppGemini, nil
	case base == "mcp.json" && dir == ".cursor":
		return AppCursor, nil
	case base == "mcp.json" && (dir == ".vscode" || dir == "User"):
		return AppVSCode, nil
	}
	data = stripJSONC(data)
	top, err := scanObject(data, int64(max(bytes.IndexByte(data, '{'), 0)))
	if err != nil {
		return "", fmt.Errorf("%s is neither JSON nor TOML of a known app", path)
	}
	if top.find("servers") >= 0 && top.find("mcpServers") < 0 {
		return AppVSCode, nil
	}
	if top.find("projects") >= 0 {
		return AppClaudeCode, nil
	}
	i := top.find("mcpServers")
	if i < 0 {
		return "", fmt.Errorf(`%s has no "mcpServers" or "servers" object`, path)
	}
	body := data[top.members[i].valStart:top.members[i].valEnd]
	switch {
	case bytes.Contains(body, []byte(`"serverUrl"`)):
		return AppWindsurf, nil
	case bytes.Contains(body, []byte(`"httpUrl"`)):
		return AppGemini, nil
	case bytes.Contains(body, []byte(`${env:`)):
		return AppCursor, nil
	}
	// The plain "mcpServers" file: Claude Code's reading of it ("type",
	// ${VAR}) is a superset of Claude Desktop's.
	return AppClaudeCode, nil
}

// ImportTarget is the mcpc config file imported entries go to.
type ImportTarget struct {
	Path   string
	Source Source // SourceUser or SourceProject
	// KeepSecrets copies literal credentials into a user file; a project
	// file never gets one.
	KeepSecrets bool
}

// literalCredential names where s carries a credential that is not a
// ${VAR}: the value of a secret-named flag in its args (--api-key V,
// --token=V), or a secret-named query parameter of its url; "" if none.
func literalCredential(s *Server) string {
	for i, a := range s.Args {
		if _, v, _ := strings.Cut(a, "="); tokenShaped(a) || tokenShaped(v) {
			return fmt.Sprintf("argument %d in its args", i+1)
		}
		if !strings.HasPrefix(a, "-") {
			continue
		}
		name, val, eq := strings.Cut(strings.TrimLeft(a, "-"), "=")
		up := strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
		// --key-file PATH names where a secret is, not the secret.
		if !secretName(up) || strings.HasSuffix(up, "_FILE") || strings.HasSuffix(up, "_PATH") || strings.HasSuffix(up, "_DIR") {
			continue
		}
		if !eq && i+1 < len(s.Args) && !strings.HasPrefix(s.Args[i+1], "-") {
			val = s.Args[i+1]
		}
		if val != "" && !strings.Contains(val, "${") {
			return fmt.Sprintf("the value of %s in its args", name)
		}
	}
	if u, err := url.Parse(s.URL); err == nil && s.URL != "" {
		for _, k := range slices.Sorted(maps.Keys(u.Query())) {
			if secretName(k) && u.Query().Get(k) != "" {
				return fmt.Sprintf("the query parameter %q of its url", k)
			}
		}
	}
	return ""
}

// Prepared is an entry made fit for its target: Server is what is written
// (nil when Skip says why not), Notes what the user must know or do,
// KeptSecrets whether a literal credential is in it.
type Prepared struct {
	Name        string
	Server      *Server
	Notes       []string
	Skip        string
	KeptSecrets bool
}

// Prepare makes e fit for t: literal credentials become ${NAME} (unless
// kept in a user file), and the entry must pass the validation a
// hand-written one does, else it is skipped with the reason.
func Prepare(e *ImportEntry, t ImportTarget) *Prepared {
	p := &Prepared{Name: e.Name, Notes: slices.Clone(e.Notes), Skip: e.Skip}
	if e.Server == nil || p.Skip != "" {
		return p
	}
	if e.varIn != "" {
		p.Skip = e.varIn + `: mcpc expands variables only in "env" and "headers" values; write the value out, or add the server with: mcpc config add`
		return p
	}
	s := *e.Server
	s.Args = slices.Clone(s.Args)
	s.Env, s.Headers = maps.Clone(s.Env), maps.Clone(s.Headers)
	keep := t.KeepSecrets && t.Source == SourceUser
	p.moveEnvSecrets(&s, e.Name, keep)
	p.moveHeaderSecrets(&s, e.Name, keep)
	// A credential in args or in the URL's query cannot become ${NAME}
	// (mcpc expands only env and header values): such an entry is kept
	// only where --keep-secrets keeps literals, and skipped elsewhere.
	if where := literalCredential(&s); where != "" {
		if !keep {
			p.Skip = where + ` looks like a literal credential, which mcpc cannot read from a variable there; add the server with "mcpc config add", passing the credential through "env"`
			return p
		}
		p.KeptSecrets = true
	}
	if t.KeepSecrets && t.Source == SourceProject && !keep {
		p.Notes = append(p.Notes, "--keep-secrets does not apply to a project file, which is shared")
	}
	if p.Skip = checkPrepared(e.Name, &s, t); p.Skip != "" {
		return p
	}
	p.Server = &s
	return p
}

// moveEnvSecrets turns each literal secret among s's env values into
// ${NAME}, with a note saying what to export, or (keep) marks p as
// keeping it.
func (p *Prepared) moveEnvSecrets(s *Server, entry string, keep bool) {
	for _, k := range slices.Sorted(maps.Keys(s.Env)) {
		if v := s.Env[k]; v != "" && (secretName(k) || tokenShaped(v)) && !strings.Contains(v, "${") {
			if keep {
				p.KeptSecrets = true
				continue
			}
			name := k
			if !validEnvName(name) {
				name = exportName(entry + "_" + k)
			}
			s.Env[k] = "${" + name + "}"
			p.Notes = append(p.Notes, fmt.Sprintf("env %s held a literal secret, not copied: it reads ${%s}; export %s", k, name, name))
		}
	}
}

// moveHeaderSecrets is moveEnvSecrets for s's headers: an Authorization
// header keeps its scheme and reads the token from ENTRY_TOKEN.
func (p *Prepared) moveHeaderSecrets(s *Server, entry string, keep bool) {
	for _, h := range slices.Sorted(maps.Keys(s.Headers)) {
		v := s.Headers[h]
		auth := strings.EqualFold(h, "authorization")
		if v == "" || !(auth || secretName(h) || tokenShaped(v)) || strings.Contains(v, "${") {
			continue
		}
		if keep {
			p.KeptSecrets = true
			continue
		}
		name := exportName(entry + "_" + h)
		scheme := ""
		if auth {
			name = exportName(entry + "_TOKEN")
			if sch, _, ok := strings.Cut(v, " "); ok {
				scheme = sch + " "
			}
		}
		s.Headers[h] = scheme + "${" + name + "}"
		p.Notes = append(p.Notes, fmt.Sprintf("header %s held a literal secret, not copied: it reads %s${%s}; export %s", h, scheme, name, name))
	}
}

// checkPrepared is why s, written as entry name into t, would not pass
// the validation a hand-written entry does, or "": the message without
// the one-entry file's place and the server's name.
func checkPrepared(name string, s *Server, t ImportTarget) string {
	data, err := SetServer(nil, name, s)
	if err != nil {
		return err.Error()
	}
	f := ParseFile(t.Path, t.Source, data)
	err = f.Err
	if srv := f.Servers[name]; err == nil && srv != nil {
		// A problem with using the server is the server's, not the
		// file's: ParseFile records it on the entry.
		err = srv.Unusable()
	}
	if err != nil {
		return strings.TrimPrefix(stripPlace(err.Error(), t.Path), fmt.Sprintf("server %q: ", name))
	}
	return ""
}

// stripPlace drops the "path:line:col: " ParseFile put before a message
// about the one-entry file it validated: the place that matters is the
// entry's in its own app's file.
func stripPlace(msg, path string) string {
	rest, ok := strings.CutPrefix(msg, path+":")
	if !ok {
		return msg
	}
	for range 2 {
		i := strings.IndexByte(rest, ':')
		if i < 0 {
			return msg
		}
		rest = rest[i+1:]
	}
	return strings.TrimSpace(rest)
}

// Merge writes entries into data (a config file's bytes, nil for none) in
// order: a name the file already has is kept (kept lists it) unless
// overwrite is set.
func Merge(path string, src Source, data []byte, entries []*Prepared, overwrite bool) (out []byte, written, kept []string, err error) {
	existing := map[string]bool{}
	if len(bytes.TrimSpace(data)) > 0 {
		f := ParseFile(path, src, data)
		if f.Err != nil {
			return nil, nil, nil, f.Err
		}
		for _, n := range f.Names {
			existing[n] = true
		}
	}
	var set []NamedServer
	for _, p := range entries {
		if p.Server == nil {
			continue
		}
		if existing[p.Name] && !overwrite {
			kept = append(kept, p.Name)
			continue
		}
		set = append(set, NamedServer{p.Name, p.Server})
		existing[p.Name] = true
		written = append(written, p.Name)
	}
	if len(set) == 0 {
		return data, written, kept, nil
	}
	// All in one edit: an entry at a time rewrote the whole file each
	// time, and 10,000 entries took minutes.
	if out, err = SetServers(data, set); err != nil {
		return nil, nil, nil, err
	}
	return out, written, kept, nil
}
