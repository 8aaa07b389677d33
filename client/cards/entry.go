package cards

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/client/transport"
	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/urlx"
)

// Entry is what a config entry takes from a card: its remote's URL,
// transport and headers, each value the user supplies written as a
// ${VAR} reference (a secret's always: a card is public, and the value
// is the user's), never a value of the card's that mcpc would expand.
type Entry struct {
	URL     string
	Type    string // "sse" for the HTTP+SSE transport, else ""
	Headers map[string]string
	// Vars are the environment variables the entry reads, with what the
	// card says of each, in name order.
	Vars []Var
}

// Var is one environment variable an Entry reads.
type Var struct {
	Name, Description string
	Secret, Default   bool
}

// FetchCard reads the card at raw (bounded as every fetch is).
func FetchCard(ctx context.Context, raw string) (*Card, error) {
	f, err := transport.Fetch(ctx, raw, fetchOptions(CardType+", application/json;q=0.5"))
	if err != nil {
		return nil, err
	}
	return ParseCard(urlx.Redact(raw), f.Body)
}

// Entry is the config entry named name that c's remote (Remote) makes;
// where names the card in messages. The environment variables it reads
// are MCPC_NAME_VAR: a card picks its variables' names, and one named
// github_token must not be filled with the user's $GITHUB_TOKEN and sent
// to the card's host.
func (c *Card) Entry(where, name string) (*Entry, error) {
	r := c.Remote()
	if r == nil {
		return nil, fail.New(fail.Protocol, "a card without remotes describes no server mcpc can reach", "%s lists no remote", where)
	}
	vars := map[string]Var{}
	prefix := envName("mcpc_" + name + "_")
	// A config's url has no ${VAR}: the card's variables there take
	// their values or defaults now.
	u, err := fill(where, "", "its remote's url", r.URL, r.Variables, vars)
	if err != nil {
		return nil, err
	}
	if err := config.CheckURL(u); err != nil {
		return nil, fail.New(fail.Protocol, "", "%s: its remote: %v", where, err)
	}
	e := &Entry{URL: u, Headers: map[string]string{}}
	if r.Type == "sse" {
		e.Type = "sse"
	}
	for _, h := range r.Headers {
		if h.Name == "" || !validHeaderName(h.Name) {
			return nil, fail.New(fail.Protocol, "", "%s: a header's name %q is not an HTTP header name", where, h.Name)
		}
		v := h.Value
		if v == "" {
			if !h.IsRequired && !h.IsSecret && h.Default == "" {
				continue // optional, and nothing to send
			}
			v = "{" + h.Name + "}"
			h.Variables = map[string]Input{h.Name: h.Input}
		}
		val, err := fill(where, prefix, "its header "+h.Name, v, h.Variables, vars)
		if err != nil {
			return nil, err
		}
		e.Headers[http.CanonicalHeaderKey(h.Name)] = val
	}
	for _, k := range slices.Sorted(maps.Keys(vars)) {
		e.Vars = append(e.Vars, vars[k])
	}
	return e, nil
}

// fill writes template t's {name} variables as the config writes a value
// the user supplies: a secret, or a value the card does not give, as
// ${PREFIXNAME} (the variable's name made an environment variable's); a
// default as ${NAME:-default}; a preset value as it is. A "$" in the
// card's own text (the template, a value, a default) is refused: with
// what follows it, the config would read it as a ${VAR} to expand from
// the user's environment, and send, say, ${GITHUB_TOKEN} to the card's
// host. With no prefix (a URL, where the config expands nothing), a
// variable takes its preset value or its default, and one with neither,
// or a secret, is refused.
func fill(where, prefix, what, t string, defs map[string]Input, vars map[string]Var) (string, error) {
	dollar := strings.Contains(t, "$")
	for _, in := range defs {
		dollar = dollar || strings.Contains(in.Value, "$") || strings.ContainsAny(in.Default, "$}")
	}
	if dollar {
		return "", fail.New(fail.Protocol, "mcpc expands ${VAR} only in what you write; write the entry by hand: mcpc config add NAME URL",
			"%s: %s has a $ in its text, which the config would expand from your environment; refused", where, what)
	}
	var b strings.Builder
	for {
		i := strings.IndexByte(t, '{')
		j := strings.IndexByte(t[max(i, 0):], '}') + max(i, 0)
		if i < 0 || j < i {
			b.WriteString(t)
			return b.String(), nil
		}
		b.WriteString(t[:i])
		name := t[i+1 : j]
		t = t[j+1:]
		in, ok := defs[name]
		switch {
		case !ok:
			return "", fail.New(fail.Protocol, "", "%s: %s uses {%s}, which the card does not define", where, what, name)
		case in.Value != "" && !in.IsSecret:
			b.WriteString(in.Value)
			continue
		case prefix == "" && in.Default != "" && !in.IsSecret:
			b.WriteString(in.Default)
			continue
		case prefix == "":
			return "", fail.New(fail.Usage, "give the server's URL with it filled in: mcpc config add NAME URL",
				"%s: %s needs {%s}, which the card gives no value for", where, what, name)
		}
		env := prefix + envName(name)
		vars[env] = Var{Name: env, Description: in.Description, Secret: in.IsSecret || vars[env].Secret, Default: in.Default != "" && !in.IsSecret}
		if in.Default != "" && !in.IsSecret {
			fmt.Fprintf(&b, "${%s:-%s}", env, in.Default)
		} else {
			fmt.Fprintf(&b, "${%s}", env)
		}
	}
}

// envName is a card variable's name as an environment variable's:
// upper case, every other byte than a letter, digit or _ made _.
func envName(name string) string {
	b := []byte(strings.ToUpper(name))
	for i, c := range b {
		if !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			b[i] = '_'
		}
	}
	if len(b) == 0 || b[0] >= '0' && b[0] <= '9' {
		b = append([]byte{'_'}, b...)
	}
	return string(b)
}

// validHeaderName says s is an RFC 9110 token.
func validHeaderName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return true
}

// Apply puts e into s, an entry config.ParseAdd made of e.URL and the
// command line's flags: the transport, and each of the card's headers a
// -H did not already set.
func (e *Entry) Apply(s *config.Server) {
	s.Type = e.Type
	for k, v := range e.Headers {
		if slices.ContainsFunc(slices.Collect(maps.Keys(s.Headers)), func(h string) bool { return strings.EqualFold(h, k) }) {
			continue
		}
		if s.Headers == nil {
			s.Headers = map[string]string{}
		}
		s.Headers[k] = v
	}
}

// Note is what a note says of v: where it goes and what the card says of
// it (its description cut to 200 bytes, at a rune).
func (v Var) Note() string {
	what := "a value"
	switch {
	case v.Secret:
		what = "a secret"
	case v.Default:
		what = "a value (the card gives a default)"
	}
	d := v.Description
	if len(d) > 200 {
		d = strings.ToValidUTF8(d[:200], "") + "…"
	}
	if d != "" {
		d = ": " + d
	}
	return fmt.Sprintf("$%s, %s%s", v.Name, what, d)
}
