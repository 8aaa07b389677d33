package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/fsx"
	"github.com/mcpc-dev/mcpc/internal/jsonpos"
	"github.com/mcpc-dev/mcpc/internal/suggest"
	"github.com/mcpc-dev/mcpc/internal/units"
)

// Source says where a server definition came from; it decides precedence and
// whether the definition may be used without `mcpc trust`.
type Source int

const (
	SourceUser    Source = iota + 1 // $XDG_CONFIG_HOME/mcpc/config.json
	SourceProject                   // .mcp.json found upwards from the working directory
	SourceFlag                      // --config FILE or MCPC_CONFIG
	SourceAdHoc                     // a URL or --stdio on the command line
)

func (s Source) String() string {
	switch s {
	case SourceUser:
		return "user"
	case SourceProject:
		return "project"
	case SourceFlag:
		return "config"
	case SourceAdHoc:
		return "command line"
	}
	return "unknown"
}

// Server is one entry of "mcpServers". Exactly one of Command and URL is set.
type Server struct {
	Type           string            `json:"type,omitempty"`
	Command        string            `json:"command,omitempty"`
	Args           []string          `json:"args,omitempty"`
	Env            map[string]string `json:"env,omitempty"`
	Cwd            string            `json:"cwd,omitempty"`
	URL            string            `json:"url,omitempty"`
	Headers        map[string]string `json:"headers,omitempty"`
	Protocol       string            `json:"protocol,omitempty"`
	Timeout        Timeout           `json:"timeout,omitempty"`
	ProbeTimeout   units.Duration    `json:"probeTimeout,omitempty"`
	MaxMessage     units.Size        `json:"maxMessage,omitempty"`
	BearerTokenEnv string            `json:"bearerTokenEnv,omitempty"`
	Auth           *Auth             `json:"auth,omitempty"`
	// DPoP binds OAuth tokens to a key (RFC 9449): unset, when the
	// authorization server offers it; true always; false never.
	DPoP *bool `json:"dpop,omitempty"`
	// ServerStderr is where a stdio server's stderr goes unless
	// --server-stderr says otherwise: "show", "hide" or a file (relative
	// to the config file's directory).
	ServerStderr string `json:"serverStderr,omitempty"`
	// CAFile, ClientCertFile and ClientKeyFile are PEM files (relative to
	// the config file's directory) for an HTTPS server signed by a private
	// CA and one that wants a client certificate (mutual TLS).
	CAFile         string `json:"caFile,omitempty"`
	ClientCertFile string `json:"clientCertFile,omitempty"`
	ClientKeyFile  string `json:"clientKeyFile,omitempty"`
	// Disabled is another host's switch (Claude Code, Cursor) that mcpc
	// honours: the server is listed, never started.
	Disabled bool `json:"disabled,omitempty"`
	// IncludeTools and ExcludeTools (Gemini CLI's names) hide tools of
	// the server by name, path.Match globs: see ToolFilteredBy.
	IncludeTools []string `json:"includeTools,omitempty"`
	ExcludeTools []string `json:"excludeTools,omitempty"`
	// EnvFile is a dotenv file (relative to the config file's directory)
	// of variables for a stdio server; "env" wins over it. Its values are
	// read only when the server is started, so nothing prints them.
	EnvFile string `json:"envFile,omitempty"`
	// KeepAlive makes the first use of a server start a session
	// holding it (mcpc session), which later uses reuse.
	KeepAlive KeepAlive `json:"keepAlive,omitempty"`

	// unusable is why the entry cannot be used (see Unusable).
	unusable error
	// ignored are the notes on other hosts' keys (see IgnoredNotes).
	ignored []string

	// literalHeaders come from --header: the shell already expanded them,
	// so mcpc must not interpret ${...} in them again.
	literalHeaders map[string]string
}

// Auth configures how mcpc authenticates to an HTTP server.
type Auth struct {
	Type                   string   `json:"type"`
	ClientID               string   `json:"clientId,omitempty"`
	ClientSecretEnv        string   `json:"clientSecretEnv,omitempty"`
	ClientMetadataURL      string   `json:"clientMetadataUrl,omitempty"`
	Scopes                 []string `json:"scopes,omitempty"`
	RedirectPort           int      `json:"redirectPort,omitempty"`
	Issuer                 string   `json:"issuer,omitempty"`
	ClientAssertionKeyFile string   `json:"clientAssertionKeyFile,omitempty"`
	ClientAssertionAlg     string   `json:"clientAssertionAlg,omitempty"`
	// Workload identity ("type": "workload"): exactly one source of the
	// CI platform's signed workload token, and the audience GitHub Actions
	// is asked to put in it (default: the issuer).
	AssertionEnv  string `json:"assertionEnv,omitempty"`
	AssertionFile string `json:"assertionFile,omitempty"`
	AssertionFrom string `json:"assertionFrom,omitempty"`
	Audience      string `json:"audience,omitempty"`
	// Enterprise-managed authorization ("type": "enterprise"): the
	// identity provider that exchanges the user's ID token for an ID-JAG,
	// and where that ID token comes from.
	IdP         *IdP   `json:"idp,omitempty"`
	IDTokenEnv  string `json:"idTokenEnv,omitempty"`
	IDTokenFile string `json:"idTokenFile,omitempty"`
}

// IdP is the enterprise identity provider of an "enterprise" auth block.
type IdP struct {
	Issuer          string   `json:"issuer"`
	ClientID        string   `json:"clientId"`
	ClientSecretEnv string   `json:"clientSecretEnv,omitempty"`
	TokenEndpoint   string   `json:"tokenEndpoint,omitempty"`
	Scopes          []string `json:"scopes,omitempty"`
}

// LiteralHeaders are the --header values, which are sent as given.
func (s *Server) LiteralHeaders() map[string]string { return s.literalHeaders }

// Protocols a config may pin. "auto" (or empty) lets mcpc pick.
var Protocols = []string{"auto", "2026-07-28", "2025-11-25", "2025-06-18"}

// File is one parsed config file.
type File struct {
	Path    string
	Source  Source
	Hash    string             // SHA-256 of the bytes that were parsed
	Servers map[string]*Server // nil when Err is set
	Names   []string           // server names in file order
	Err     error              // a parse or validation error (*fail.Error, KindConfig)
}

// allowedKeys are the keys of each level, in the order the hints list
// them; a server's and auth's are their structs' JSON names, so a field
// added there is a key mcpc accepts.
// (Built on first use: reflection at package init would cost every
// invocation, mcpc --version included.)
var allowedKeys = sync.OnceValue(func() map[string][]string {
	return map[string][]string{
		"":       {"mcpServers", "$schema"},
		"server": jsonKeys[Server](),
		"auth":   jsonKeys[Auth](),
		"idp":    jsonKeys[IdP](),
	}
})

// jsonKeys are the JSON names of T's exported fields, in field order.
func jsonKeys[T any]() []string {
	var keys []string
	for f := range reflect.TypeFor[T]().Fields() {
		if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); f.IsExported() && name != "" && name != "-" {
			keys = append(keys, name)
		}
	}
	return keys
}

// configErr builds a KindConfig error located at byte offset off of data.
func configErr(path string, data []byte, off int64, format string, args ...any) *fail.Error {
	line, col := jsonpos.LineCol(data, off)
	return fail.New(fail.Config, "", "%s:%d:%d: %s", path, line, col, fmt.Sprintf(format, args...))
}

// lines numbers the lines of offsets met in increasing order by counting
// only the bytes since the last one: lineCol for each of n entries would
// count from the start each time.
type lines struct {
	data []byte
	off  int64
	line int
}

func (l *lines) at(off int64) int {
	if off < l.off || l.line == 0 {
		l.off, l.line = 0, 1
	}
	off = min(max(off, 0), int64(len(l.data)))
	l.line += bytes.Count(l.data[l.off:off], []byte("\n"))
	l.off = off
	return l.line
}

// ParseFile parses and validates one config file's bytes. Problems are
// reported with file, line and column so the user can jump straight to them.
func ParseFile(path string, src Source, data []byte) *File {
	f := &File{Path: path, Source: src, Hash: hashBytes(data)}
	servers, names, err := parseServers(path, data)
	if err != nil {
		f.Err = err
		return f
	}
	// An entry mcpc cannot use is that server's problem, not the file's:
	// the file may be shared with hosts that speak what mcpc does not, and
	// its other servers still work.
	for _, name := range names {
		l := servers[name]
		l.srv.unusable = validateServer(path, src, name, l.srv, data, l.off, l.keys)
	}
	f.Servers = map[string]*Server{}
	for name, s := range servers {
		f.Servers[name] = s.srv
	}
	f.Names = names
	return f
}

type located struct {
	srv  *Server
	off  int64            // where the server's value starts
	keys map[string]int64 // where each of its keys starts
}

func parseServers(path string, data []byte) (map[string]located, []string, error) {
	if err := checkShape(path, data, false); err != nil {
		return nil, nil, err
	}
	if err := checkSyntax(data); err != nil {
		return nil, nil, configErr(path, data, syntaxOffset(data, err), "invalid JSON: %s", strings.TrimPrefix(err.Error(), "json: "))
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	w := &walker{path: path, data: data, dec: dec}
	return w.top()
}

// checkSyntax reports the first syntax error, including trailing garbage
// after the top-level value, which json.Valid would not locate.
func checkSyntax(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	var v json.RawMessage
	if err := dec.Decode(&v); err != nil {
		if err == io.EOF {
			return &json.SyntaxError{Offset: 0}
		}
		return err
	}
	off := dec.InputOffset()
	for off < int64(len(data)) && strings.IndexByte(" \t\r\n", data[off]) >= 0 {
		off++
	}
	if off < int64(len(data)) {
		return &jsonpos.Trailing{Off: off}
	}
	return nil
}

// syntaxOffset is where checkSyntax's error err points in data; one that
// names no place is taken to be at the end.
func syntaxOffset(data []byte, err error) int64 {
	if off, ok := jsonpos.Offset(data, err); ok {
		return off
	}
	return int64(len(data))
}

// walker checks the key structure token by token so an unknown key or a
// wrongly typed value can be reported at its exact line and column.
type walker struct {
	path string
	data []byte
	dec  *json.Decoder // reads data[base:]
	base int64
}

// offset is where the decoder is in data.
func (w *walker) offset() int64 { return w.base + w.dec.InputOffset() }

func (w *walker) errAt(off int64, format string, args ...any) error {
	return configErr(w.path, w.data, off, format, args...)
}

func (w *walker) valueStart() int64 {
	off := w.offset()
	for off < int64(len(w.data)) {
		switch w.data[off] {
		case ' ', '\t', '\r', '\n', ':', ',':
			off++
			continue
		}
		break
	}
	return off
}

func (w *walker) expectDelim(want json.Delim, what string) error {
	off := w.valueStart()
	tok, err := w.dec.Token()
	if err != nil {
		return w.errAt(off, "invalid JSON: %v", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != want {
		kind := "an object"
		if want == '[' {
			kind = "an array"
		}
		return w.errAt(off, "%s must be %s", what, kind)
	}
	return nil
}

// key reads the next key and where its opening quote is: past the comma
// and blanks before it, as a value is found, rather than by reading its
// escapes backwards from its end.
func (w *walker) key() (string, int64, error) {
	start := w.valueStart()
	tok, err := w.dec.Token()
	if err != nil {
		return "", 0, w.errAt(w.offset(), "invalid JSON: %v", err)
	}
	k, _ := tok.(string)
	return k, start, nil
}

func (w *walker) skip() error {
	var v json.RawMessage
	return w.dec.Decode(&v)
}

func unknownKey(key, where string, allowed []string) string {
	msg := fmt.Sprintf("unknown field %q in %s", key, where)
	if a := suggest.Closest(key, allowed); a != "" {
		return msg + fmt.Sprintf(" (did you mean %q?)", a)
	}
	return msg
}

func (w *walker) top() (map[string]located, []string, error) {
	if err := w.expectDelim('{', "the top level"); err != nil {
		return nil, nil, err
	}
	servers := map[string]located{}
	var names []string
	seen := false
	for w.dec.More() {
		k, off, err := w.key()
		if err != nil {
			return nil, nil, err
		}
		switch k {
		case "mcpServers":
			seen = true
			if err := w.expectDelim('{', `"mcpServers"`); err != nil {
				return nil, nil, err
			}
			for w.dec.More() {
				name, noff, err := w.key()
				if err != nil {
					return nil, nil, err
				}
				if !validName(name) {
					return nil, nil, w.errAt(noff, "invalid server name %q: use letters, digits, '.', '_' and '-' (not starting with '-')", name)
				}
				if _, dup := servers[name]; dup {
					return nil, nil, w.errAt(noff, "server %q is defined twice", name)
				}
				voff := w.valueStart()
				srv, keys, err := w.server(name)
				if err != nil {
					return nil, nil, err
				}
				servers[name] = located{srv, voff, keys}
				names = append(names, name)
			}
			w.dec.Token() // closing }
		case "$schema":
			if err := w.skip(); err != nil {
				return nil, nil, err
			}
		default:
			return nil, nil, w.errAt(off, "%s", unknownKey(k, "the top level", allowedKeys()[""])+`; servers go under "mcpServers"`)
		}
	}
	if !seen {
		return nil, nil, w.errAt(0, `no "mcpServers" object`)
	}
	return servers, names, nil
}

func (w *walker) server(name string) (*Server, map[string]int64, error) {
	where := fmt.Sprintf("server %q", name)
	start := w.valueStart()
	if err := w.expectDelim('{', where); err != nil {
		return nil, nil, err
	}
	s := &Server{}
	type field struct {
		key string
		off int64
		raw json.RawMessage
	}
	var fields []field
	keys := map[string]int64{}
	for w.dec.More() {
		k, koff, err := w.key()
		if err != nil {
			return nil, nil, err
		}
		keys[k] = koff
		if slices.Contains(hostKeys, k) {
			// Decoding the object below skips it too: Server has no field
			// of that name.
			if err := w.skip(); err != nil {
				return nil, nil, w.errAt(koff, "invalid JSON: %v", err)
			}
			line, col := jsonpos.LineCol(w.data, koff)
			s.ignored = append(s.ignored, fmt.Sprintf("%s:%d:%d: %s: ignoring %q, another MCP host's setting that mcpc does not use", w.path, line, col, where, k))
			continue
		}
		if !slices.Contains(allowedKeys()["server"], k) {
			return nil, nil, w.errAt(koff, "%s", unknownKey(k, where, slices.Concat(allowedKeys()["server"], hostKeys)))
		}
		voff := w.valueStart()
		if k == "auth" {
			a, err := w.auth(where)
			if err != nil {
				return nil, nil, err
			}
			s.Auth = a
			continue
		}
		var raw json.RawMessage
		if err := w.dec.Decode(&raw); err != nil {
			return nil, nil, w.errAt(voff, "invalid JSON: %v", err)
		}
		fields = append(fields, field{k, voff, raw})
	}
	w.dec.Token()
	// The keys are known good: decode the whole object through the struct's
	// tags at once, and only when that fails each field alone, to name the
	// one at fault (a decode per field costs as much as the rest of Load).
	if err := json.Unmarshal(w.data[start:w.offset()], s); err == nil {
		return s, keys, nil
	}
	one := &Server{}
	for _, f := range fields {
		if err := decodeField(one, f.key, f.raw); err != nil {
			return nil, nil, w.errAt(f.off, "%s: field %q: %s", where, f.key, err)
		}
	}
	return nil, nil, w.errAt(start, "%s: cannot decode the server", where)
}

func (w *walker) auth(where string) (*Auth, error) {
	where += ` "auth"`
	start := w.valueStart()
	if err := w.expectDelim('{', where); err != nil {
		return nil, err
	}
	for w.dec.More() {
		k, koff, err := w.key()
		if err != nil {
			return nil, err
		}
		if !slices.Contains(allowedKeys()["auth"], k) {
			return nil, w.errAt(koff, "%s", unknownKey(k, where, allowedKeys()["auth"]))
		}
		if k == "idp" {
			// Its keys are checked too: a misspelt "tokenEndpoint" would
			// otherwise be dropped in silence.
			if err := w.idpKeys(where + ` "idp"`); err != nil {
				return nil, err
			}
			continue
		}
		if err := w.skip(); err != nil {
			return nil, w.errAt(koff, "invalid JSON: %v", err)
		}
	}
	w.dec.Token()
	end := w.offset()
	var a Auth
	if err := json.Unmarshal(w.data[start:end], &a); err != nil {
		return nil, w.errAt(start, "%s: %s", where, typeErrText(err))
	}
	return &a, nil
}

func (w *walker) idpKeys(where string) error {
	if err := w.expectDelim('{', where); err != nil {
		return err
	}
	for w.dec.More() {
		k, koff, err := w.key()
		if err != nil {
			return err
		}
		if !slices.Contains(allowedKeys()["idp"], k) {
			return w.errAt(koff, "%s", unknownKey(k, where, allowedKeys()["idp"]))
		}
		if err := w.skip(); err != nil {
			return w.errAt(koff, "invalid JSON: %v", err)
		}
	}
	_, err := w.dec.Token()
	return err
}

// decodeField decodes one server field through the struct's own JSON tags,
// so the walker and the Server type cannot drift apart.
func decodeField(s *Server, key string, raw json.RawMessage) error {
	one, err := json.Marshal(map[string]json.RawMessage{key: raw})
	if err != nil {
		return err
	}
	if err := json.Unmarshal(one, s); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			te.Field = "" // the caller names the field
		}
		return errors.New(typeErrText(err))
	}
	return nil
}

func typeErrText(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		if te.Field != "" {
			return fmt.Sprintf("%s must be %s, not %s", te.Field, jsonKind(te.Type.Kind().String()), te.Value)
		}
		return fmt.Sprintf("must be %s, not %s", jsonKind(te.Type.Kind().String()), te.Value)
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "a string"
	case "slice":
		return "an array"
	case "map", "struct", "ptr":
		return "an object"
	case "int", "int64", "float64":
		return "a number"
	case "bool":
		return "a boolean"
	}
	return goKind
}

// readConfigFile reads and parses path; a missing file yields (nil, nil).
func readConfigFile(path string, src Source) (*File, error) {
	data, err := fsx.ReadFile(path, MaxConfigFile)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fail.Wrap(fail.Config, err, "", "cannot read config file %s", path)
	}
	if src != SourceProject {
		if err := safeConfigFile(path); err != nil {
			return nil, err
		}
	}
	return ParseFile(path, src, data), nil
}
