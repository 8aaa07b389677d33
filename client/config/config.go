package config

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"sync"

	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/fsx"
	"github.com/mcpc-dev/mcpc/internal/jsonpos"
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
	// HeadersCommand and BearerTokenCommand are credential helpers: a
	// command (argv, never a shell) whose stdout is a JSON object of
	// headers, or one bearer token, run when the server is first reached
	// and once more when it refuses them. HeadersTTL is how long what it
	// printed is used (default: for the invocation, or the session).
	HeadersCommand     []string       `json:"headersCommand,omitempty"`
	BearerTokenCommand []string       `json:"bearerTokenCommand,omitempty"`
	HeadersTTL         units.Duration `json:"headersTtl,omitempty"`
	Auth               *Auth          `json:"auth,omitempty"`
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
	// Record is a directory (relative to the config file's directory)
	// a session's holder of the server records its traffic into, a file
	// for each holder (mcpc help record).
	Record string `json:"record,omitempty"`

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

// HelperCommand is the server's credential helper, and the key that
// names it; nil when it has none.
func (s *Server) HelperCommand() (argv []string, key string) {
	switch {
	case s.BearerTokenCommand != nil:
		return s.BearerTokenCommand, "bearerTokenCommand"
	case s.HeadersCommand != nil:
		return s.HeadersCommand, "headersCommand"
	}
	return nil, ""
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
