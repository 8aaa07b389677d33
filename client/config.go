package client

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/fsx"
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
	Timeout        Duration          `json:"timeout,omitempty"`
	ProbeTimeout   Duration          `json:"probeTimeout,omitempty"`
	MaxMessage     Size              `json:"maxMessage,omitempty"`
	BearerTokenEnv string            `json:"bearerTokenEnv,omitempty"`
	Auth           *Auth             `json:"auth,omitempty"`
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
}

// Transport names the wire the server speaks: "stdio" or "http".
func (s *Server) Transport() string {
	if s.URL != "" {
		return "http"
	}
	return "stdio"
}

// Duration accepts either a number of seconds or a Go duration string
// ("90s", "2m"), because both spellings appear in the configs users copy.
type Duration time.Duration

func (d *Duration) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		v, err := time.ParseDuration(s)
		if err != nil || v < 0 {
			return fmt.Errorf("invalid duration %q (use seconds or a duration like \"90s\")", s)
		}
		*d = Duration(v)
		return nil
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil || f < 0 {
		return fmt.Errorf("invalid timeout %s (use seconds or a duration like \"90s\")", b)
	}
	*d = Duration(f * float64(time.Second))
	return nil
}

func (d Duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(d).String())
}

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

var allowedKeys = map[string][]string{
	"":       {"mcpServers", "$schema"},
	"server": {"type", "command", "args", "env", "cwd", "url", "headers", "protocol", "timeout", "probeTimeout", "maxMessage", "bearerTokenEnv", "auth", "serverStderr", "caFile", "clientCertFile", "clientKeyFile", "description", "disabled"},
	"auth":   {"type", "clientId", "clientSecretEnv", "clientMetadataUrl", "scopes", "redirectPort", "issuer", "clientAssertionKeyFile", "clientAssertionAlg"},
}

// configErr builds a KindConfig error located at byte offset off of data.
func configErr(path string, data []byte, off int64, format string, args ...any) *fail.Error {
	line, col := lineCol(data, off)
	return fail.New(fail.Config, "", "%s:%d:%d: %s", path, line, col, fmt.Sprintf(format, args...))
}

func lineCol(data []byte, off int64) (int, int) {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	if off < 0 {
		off = 0
	}
	before := data[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	col := len(before) - bytes.LastIndexByte(before, '\n')
	return line, col
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
	for _, name := range names {
		if err := validateServer(path, src, name, servers[name].srv, data, servers[name].off); err != nil {
			f.Err = err
			return f
		}
	}
	f.Servers = map[string]*Server{}
	for name, s := range servers {
		f.Servers[name] = s.srv
	}
	f.Names = names
	return f
}

type located struct {
	srv *Server
	off int64
}

func parseServers(path string, data []byte) (map[string]located, []string, error) {
	var syn *json.SyntaxError
	if err := checkSyntax(data); err != nil {
		var tr *trailingData
		if errors.As(err, &tr) {
			return nil, nil, configErr(path, data, tr.off, "invalid JSON: unexpected data after the top-level value")
		}
		if errors.As(err, &syn) {
			return nil, nil, configErr(path, data, max(syn.Offset-1, 0), "invalid JSON: %s", strings.TrimPrefix(syn.Error(), "json: "))
		}
		return nil, nil, configErr(path, data, int64(len(data)), "invalid JSON: %v", err)
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
		return &trailingData{off: off}
	}
	return nil
}

type trailingData struct{ off int64 }

func (t *trailingData) Error() string { return "unexpected data after the top-level value" }

// walker checks the key structure token by token so an unknown key or a
// wrongly typed value can be reported at its exact line and column.
type walker struct {
	path string
	data []byte
	dec  *json.Decoder
}

func (w *walker) errAt(off int64, format string, args ...any) error {
	return configErr(w.path, w.data, off, format, args...)
}

// keyStart finds the offset of the opening quote of the key token that
// ended at end.
func (w *walker) keyStart(end int64) int64 {
	i := end - 2
	for i > 0 && !(w.data[i] == '"' && w.data[i-1] != '\\') {
		i--
	}
	return i
}

func (w *walker) valueStart() int64 {
	off := w.dec.InputOffset()
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

func (w *walker) key() (string, int64, error) {
	tok, err := w.dec.Token()
	if err != nil {
		return "", 0, w.errAt(w.dec.InputOffset(), "invalid JSON: %v", err)
	}
	k, _ := tok.(string)
	return k, w.keyStart(w.dec.InputOffset()), nil
}

func (w *walker) skip() error {
	var v json.RawMessage
	return w.dec.Decode(&v)
}

func unknownKey(key, where string, allowed []string) string {
	msg := fmt.Sprintf("unknown field %q in %s", key, where)
	for _, a := range allowed {
		if strings.EqualFold(a, key) {
			return msg + fmt.Sprintf(" (did you mean %q?)", a)
		}
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
				srv, err := w.server(name)
				if err != nil {
					return nil, nil, err
				}
				servers[name] = located{srv, voff}
				names = append(names, name)
			}
			w.dec.Token() // closing }
		case "$schema":
			if err := w.skip(); err != nil {
				return nil, nil, err
			}
		default:
			return nil, nil, w.errAt(off, "%s", unknownKey(k, "the top level", allowedKeys[""])+`; servers go under "mcpServers"`)
		}
	}
	if !seen {
		return nil, nil, w.errAt(0, `no "mcpServers" object`)
	}
	return servers, names, nil
}

func (w *walker) server(name string) (*Server, error) {
	where := fmt.Sprintf("server %q", name)
	start := w.valueStart()
	if err := w.expectDelim('{', where); err != nil {
		return nil, err
	}
	s := &Server{}
	type field struct {
		key string
		off int64
		raw json.RawMessage
	}
	var fields []field
	for w.dec.More() {
		k, koff, err := w.key()
		if err != nil {
			return nil, err
		}
		if !slices.Contains(allowedKeys["server"], k) {
			return nil, w.errAt(koff, "%s", unknownKey(k, where, allowedKeys["server"]))
		}
		voff := w.valueStart()
		if k == "auth" {
			a, err := w.auth(where)
			if err != nil {
				return nil, err
			}
			s.Auth = a
			continue
		}
		var raw json.RawMessage
		if err := w.dec.Decode(&raw); err != nil {
			return nil, w.errAt(voff, "invalid JSON: %v", err)
		}
		fields = append(fields, field{k, voff, raw})
	}
	w.dec.Token()
	// The keys are known good: decode the whole object through the struct's
	// tags at once, and only when that fails each field alone, to name the
	// one at fault (a decode per field costs as much as the rest of Load).
	if err := json.Unmarshal(w.data[start:w.dec.InputOffset()], s); err == nil {
		return s, nil
	}
	one := &Server{}
	for _, f := range fields {
		if err := decodeField(one, f.key, f.raw); err != nil {
			return nil, w.errAt(f.off, "%s: field %q: %s", where, f.key, err)
		}
	}
	return nil, w.errAt(start, "%s: cannot decode the server", where)
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
		if !slices.Contains(allowedKeys["auth"], k) {
			return nil, w.errAt(koff, "%s", unknownKey(k, where, allowedKeys["auth"]))
		}
		if err := w.skip(); err != nil {
			return nil, w.errAt(koff, "invalid JSON: %v", err)
		}
	}
	w.dec.Token()
	end := w.dec.InputOffset()
	var a Auth
	if err := json.Unmarshal(w.data[start:end], &a); err != nil {
		return nil, w.errAt(start, "%s: %s", where, typeErrText(err))
	}
	return &a, nil
}

// decodeField decodes one server field through the struct's own JSON tags,
// so the walker and the Server type cannot drift apart.
func decodeField(s *Server, key string, raw json.RawMessage) error {
	if key == "description" || key == "disabled" {
		// Accepted for compatibility with other hosts' files; mcpc ignores them.
		return nil
	}
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

// validName accepts server names of at most 128 letters, digits, '_', '.'
// and '-', not starting with '-'.
func validName(s string) bool {
	if s == "" || len(s) > 128 || s[0] == '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !isWordByte(c) && c != '.' && c != '-' {
			return false
		}
	}
	return true
}

// validEnvName accepts what a shell accepts as a variable name.
func validEnvName(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isWordByte(s[i]) {
			return false
		}
	}
	return true
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// varRE is compiled on first use, not at start-up, and only for text that
// holds "${": most invocations never meet one.
var varRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\$\{[^}]*\}`) })

func hasVar(v string) bool { return strings.Contains(v, "${") && varRE().MatchString(v) }

func validateServer(path string, src Source, name string, s *Server, data []byte, off int64) error {
	fail := func(format string, args ...any) error {
		return configErr(path, data, off, "server %q: %s", name, fmt.Sprintf(format, args...))
	}
	switch s.Type {
	case "", "stdio", "http", "streamable-http", "streamableHttp":
	case "sse":
		return fail(`type "sse" (the deprecated HTTP+SSE transport) is not supported; use the server's Streamable HTTP endpoint`)
	default:
		return fail(`unknown type %q (use "stdio" or "http")`, s.Type)
	}
	switch {
	case s.Command == "" && s.URL == "":
		return fail(`needs "command" (stdio) or "url" (Streamable HTTP)`)
	case s.Command != "" && s.URL != "":
		return fail(`has both "command" and "url"; a server is either stdio or HTTP`)
	}
	if s.Type == "stdio" && s.URL != "" || (s.Type == "http" || s.Type == "streamable-http" || s.Type == "streamableHttp") && s.Command != "" {
		return fail("type %q does not match the fields given", s.Type)
	}
	for field, v := range map[string]string{"command": s.Command, "cwd": s.Cwd, "url": s.URL} {
		if hasVar(v) {
			return fail("${VAR} is only expanded in \"env\" and \"headers\" values, not in %q", field)
		}
	}
	for _, a := range s.Args {
		if hasVar(a) {
			return fail(`${VAR} is only expanded in "env" and "headers" values, not in "args"`)
		}
	}
	if s.URL != "" {
		if err := CheckURL(s.URL); err != nil {
			return fail("%s", err)
		}
		if len(s.Env) > 0 || s.Cwd != "" || len(s.Args) > 0 {
			return fail(`"args", "env" and "cwd" apply to stdio servers only`)
		}
		if s.ServerStderr != "" {
			return fail(`"serverStderr" applies to stdio servers only`)
		}
		if (s.ClientCertFile == "") != (s.ClientKeyFile == "") {
			return fail(`"clientCertFile" and "clientKeyFile" go together`)
		}
	} else if len(s.Headers) > 0 || s.BearerTokenEnv != "" || s.Auth != nil {
		return fail(`"headers", "bearerTokenEnv" and "auth" apply to HTTP servers only`)
	} else if s.CAFile != "" || s.ClientCertFile != "" || s.ClientKeyFile != "" {
		return fail(`"caFile", "clientCertFile" and "clientKeyFile" apply to HTTP servers only`)
	}
	if s.Protocol != "" && !slices.Contains(Protocols, s.Protocol) {
		return fail("unknown protocol %q (use one of %s)", s.Protocol, strings.Join(Protocols, ", "))
	}
	for k, v := range s.Headers {
		if err := checkInterp(v); err != nil {
			return fail("header %q: %s", k, err)
		}
		// A project file is shared through version control: a literal token
		// there is a leaked secret, so insist on a variable.
		if src == SourceProject && strings.EqualFold(k, "authorization") && !hasVar(v) {
			return fail("header %q holds a literal secret; put the token in an environment variable and use \"bearerTokenEnv\" or ${VAR}", k)
		}
	}
	for k, v := range s.Env {
		if err := checkInterp(v); err != nil {
			return fail("env %q: %s", k, err)
		}
	}
	if s.BearerTokenEnv != "" && !validEnvName(s.BearerTokenEnv) {
		return fail("bearerTokenEnv %q is not an environment variable name", s.BearerTokenEnv)
	}
	if a := s.Auth; a != nil {
		switch a.Type {
		case "oauth":
		case "client_credentials":
			if a.ClientID == "" || a.Issuer == "" {
				return fail(`auth type "client_credentials" needs "clientId" and "issuer"`)
			}
			if (a.ClientSecretEnv == "") == (a.ClientAssertionKeyFile == "") {
				return fail(`auth type "client_credentials" needs exactly one of "clientSecretEnv" and "clientAssertionKeyFile"`)
			}
		default:
			return fail(`unknown auth type %q (use "oauth" or "client_credentials")`, a.Type)
		}
	}
	return nil
}

func checkInterp(v string) error {
	if !strings.Contains(v, "${") {
		return nil
	}
	for _, m := range varRE().FindAllString(v, -1) {
		name := strings.TrimSuffix(strings.TrimPrefix(m, "${"), "}")
		name, _, _ = strings.Cut(name, ":-")
		if !validEnvName(name) {
			return fmt.Errorf("%s is not a valid ${VAR} reference", m)
		}
	}
	return nil
}

// Expand replaces ${VAR} and ${VAR:-default} in v with values from getenv.
// Nothing else is interpreted: no shell, no command substitution. A variable
// that is unset and has no default is an error naming it.
func Expand(v string, getenv func(string) string) (string, error) {
	if !strings.Contains(v, "${") {
		return v, nil
	}
	var missing string
	out := varRE().ReplaceAllStringFunc(v, func(m string) string {
		name, def, hasDef := strings.Cut(m[2:len(m)-1], ":-")
		if val := getenv(name); val != "" {
			return val
		}
		if hasDef {
			return def
		}
		if missing == "" {
			missing = name
		}
		return ""
	})
	if missing != "" {
		return "", fmt.Errorf("environment variable %s is not set", missing)
	}
	return out, nil
}

// CheckURL enforces mcpc's URL rules: https, or http only on a loopback
// host; no credentials in the URL; no other schemes.
func CheckURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		// url.Error quotes the whole URL: say what is wrong without it.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return fmt.Errorf("invalid URL %q: %v", RedactURL(raw), err)
	}
	if u.User != nil {
		return fmt.Errorf("URL %q contains credentials; use \"bearerTokenEnv\" or headers with ${VAR}", redactURL(u))
	}
	raw = redactURL(u)
	switch u.Scheme {
	case "https":
	case "http":
		if !isLoopback(u.Hostname()) {
			return fmt.Errorf("URL %q uses plain http on a non-loopback host; use https", raw)
		}
	default:
		return fmt.Errorf("URL %q: scheme %q is not supported (use https, or http on loopback)", raw, u.Scheme)
	}
	if u.Host == "" {
		return fmt.Errorf("URL %q has no host", raw)
	}
	return nil
}

func redactURL(u *url.URL) string {
	c := *u
	if c.User != nil {
		c.User = url.User("REDACTED")
	}
	if c.RawQuery != "" {
		// Any query value may be a secret (api_key=…, token=…): keep the
		// names, which say what the URL is, and hide every value.
		q := c.Query()
		for k, vs := range q {
			for i := range vs {
				vs[i] = "REDACTED"
			}
			q[k] = vs
		}
		c.RawQuery = q.Encode()
	}
	return c.String()
}

// RedactURL is raw as it may be printed: credentials and query values
// replaced by REDACTED. Every URL that reaches the user goes through it.
func RedactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		if i := strings.IndexAny(raw, "?#"); i >= 0 {
			return raw[:i] + "?REDACTED"
		}
		return raw
	}
	return redactURL(u)
}

func isLoopback(host string) bool {
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
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
	return ParseFile(path, src, data), nil
}
