package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/fsx"
	"github.com/mcpc-dev/mcpc/internal/shellwords"
	"github.com/mcpc-dev/mcpc/internal/units"
)

// Entries written for other MCP hosts. A project .mcp.json is shared with
// Claude Code, Cursor, VS Code and the rest, so its entries carry their
// fields: the ones that say how to reach the server ("type", "disabled",
// "envFile", a "timeout" in milliseconds) are honoured; the ones about a
// host's own UI or approval policy are accepted and ignored; an entry mcpc
// cannot use makes that one server unusable, not the file.

// hostKeys are the server keys other hosts define for their own UI or
// policy. mcpc has no use for them: they are skipped, with a note under
// --verbose so that nobody believes mcpc honours them.
var hostKeys = []string{"autoApprove", "alwaysAllow", "description", "trust"}

// httpTypes are the "type" values that mean Streamable HTTP.
var httpTypes = []string{"http", "streamable-http", "streamableHttp"}

// Unusable is why mcpc cannot use this server (an invalid entry, or a
// transport it does not speak), or nil. It is a config error beginning with
// the file, line and column.
func (s *Server) Unusable() error { return s.unusable }

// IgnoredNotes are the lines saying which keys of the entry mcpc ignores
// because they belong to another host, for --verbose.
func (s *Server) IgnoredNotes() []string { return s.ignored }

// Timeout is a server's start-up timeout: a duration string ("90s", "2m"),
// or a JSON number of milliseconds, as Claude Code and Gemini CLI write it.
// The JSON type decides, so neither spelling is ambiguous.
type Timeout time.Duration

func (t *Timeout) UnmarshalJSON(b []byte) error {
	v, err := units.DecodeDuration(b, time.Millisecond, `use a duration like "90s", or a number of milliseconds`)
	*t = Timeout(v)
	return err
}

func (t Timeout) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(t).String()) }

// MaxEnvFile bounds an "envFile": a few variables, not a data file.
const MaxEnvFile = 64 << 10

// EnvFileVars reads the entry's "envFile" (relative to the config file's
// directory) as KEY=VALUE words for a process environment, in file order;
// nil when there is none. Errors name the file and line, never a value.
func (e *Entry) EnvFileVars(cwd string) ([]string, error) {
	name := e.Server.EnvFile
	if name == "" {
		return nil, nil
	}
	path := name
	if !filepath.IsAbs(path) {
		path = filepath.Join(e.ConfigDir(cwd), path)
	}
	hint := fmt.Sprintf("fix \"envFile\" of server %q in %s", e.Name, e.SourceName())
	data, err := fsx.ReadFile(path, MaxEnvFile)
	if err != nil {
		return nil, fail.Wrap(fail.Config, fsx.Reason(err), hint, "server %q: cannot read envFile %s", e.Name, path)
	}
	vars, err := parseDotenv(path, data)
	if err != nil {
		return nil, &fail.Error{Code: fail.Config, Msg: fmt.Sprintf("server %q: %v", e.Name, err), Hint: hint, Err: err}
	}
	return vars, nil
}

// parseDotenv reads the dotenv format other hosts accept: KEY=VALUE lines,
// an optional "export ", blank lines and # comments, values in single
// quotes (literal) or double quotes (\n, \t, \" and \\ escapes), and a
// " #" comment after an unquoted value. Nothing is expanded. An error says
// path:line and what was expected; it never quotes a value, which may be
// a secret.
func parseDotenv(path string, data []byte) ([]string, error) {
	var vars []string
	for i, line := range bytes.Split(data, []byte("\n")) {
		bad := func(format string, args ...any) error {
			return fmt.Errorf("envFile %s:%d: %s", path, i+1, fmt.Sprintf(format, args...))
		}
		l := strings.TrimSpace(strings.TrimSuffix(string(line), "\r"))
		if l == "" || l[0] == '#' {
			continue
		}
		l = strings.TrimPrefix(l, "export ")
		k, v, ok := strings.Cut(l, "=")
		if !ok {
			return nil, bad("expected KEY=VALUE")
		}
		if k = strings.TrimSpace(k); !validEnvName(k) {
			return nil, bad("%s is not an environment variable name", shellwords.Quote(k))
		}
		v = strings.TrimLeft(v, " \t")
		switch {
		case v != "" && (v[0] == '"' || v[0] == '\''):
			val, rest, err := unquoteDotenv(v)
			if err != nil {
				return nil, bad("%s: %v", k, err)
			}
			if rest = strings.TrimSpace(rest); rest != "" && rest[0] != '#' {
				return nil, bad("%s: unexpected text after the closing quote", k)
			}
			v = val
		default:
			if j := strings.Index(v, " #"); j >= 0 {
				v = v[:j]
			}
			v = strings.TrimRight(v, " \t")
		}
		vars = append(vars, k+"="+v)
	}
	return vars, nil
}

// unquoteDotenv reads the quoted value at the start of v and returns it
// and the text after the closing quote.
func unquoteDotenv(v string) (val, rest string, err error) {
	q := v[0]
	var b strings.Builder
	for i := 1; i < len(v); i++ {
		c := v[i]
		switch {
		case c == q:
			return b.String(), v[i+1:], nil
		case c == '\\' && q == '"' && i+1 < len(v):
			i++
			switch v[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			default:
				b.WriteByte(v[i])
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", "", errors.New("the quoted value has no closing quote")
}

// refusal is why Lookup does not hand out a configured entry: it is
// disabled in its file, or unusable. nil when it may be used.
func (e *Entry) refusal() error {
	where := e.SourceName()
	hint := "fix the entry in " + where
	if e.File != nil && e.File.Source == SourceProject {
		hint = "fix the entry, then run: mcpc trust " + shellwords.Quote(where)
	}
	switch {
	case e.Server.Disabled:
		hint := strings.Replace(hint, "fix the entry", `remove "disabled": true from the entry`, 1)
		return fail.New(fail.Config, hint, "server %q is disabled (\"disabled\": true in %s)", e.Name, where)
	case e.Server.unusable != nil:
		return &fail.Error{Code: fail.Config, Msg: e.Server.unusable.Error(), Hint: hint, Err: e.Server.unusable}
	}
	return nil
}
