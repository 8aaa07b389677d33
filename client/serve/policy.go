package serve

import (
	"context"
	"fmt"
	"net/http"
	"sync"

	"github.com/tidwall/gjson"

	"github.com/mcpc-dev/mcpc/client/config"
)

// Policy is what serve lends of the tools its servers have, besides the
// entries' own filters (includeTools, excludeTools), which apply first:
// --deny, then --allow, then --read-only. One Policy holds for every
// server serve lends; a refused tool is left out of tools/list and a call
// of it is answered by serve, never sent on.
//
// A pattern matches a tool as SERVER__TOOL, and as the name the client
// sees: with one server lent, that is TOOL itself, so --deny 'delete_*'
// and --deny 'github__delete_*' both hold; when several are lent as one
// (Aggregated), the client sees SERVER__TOOL only, and a bare TOOL
// pattern would reach into every server's tools by a name no client
// sees, so it is matched as SERVER__TOOL only ('*__delete_*' says "of
// every server").
type Policy struct {
	Deny, Allow []string
	// ReadOnly lends only the tools annotated readOnlyHint: true.
	ReadOnly bool
	// Aggregated says the servers are lent as one: a pattern matches
	// SERVER + Separator + TOOL only, the name a host sees.
	Aggregated bool
	Separator  string // "" is "__"
	// Log, when set, is told of each request a client sends (--log).
	Log *CallLog

	mu       sync.Mutex
	readOnly map[string]bool // SERVER__TOOL → its readOnlyHint, from tools/list answers
}

func (p *Policy) sep() string {
	if p.Separator == "" {
		return "__"
	}
	return p.Separator
}

// refuses says why p does not lend server's tool ("" when it does).
func (p *Policy) refuses(server, tool string) string {
	if p == nil {
		return ""
	}
	full := server + p.sep() + tool
	names := []string{full}
	if !p.Aggregated {
		names = append(names, tool)
	}
	if pat, ok := config.MatchTool(p.Deny, names...); ok {
		return fmt.Sprintf("--deny %q", pat)
	}
	if _, ok := config.MatchTool(p.Allow, names...); !ok && len(p.Allow) > 0 {
		return "no --allow pattern matches"
	}
	if !p.ReadOnly {
		return ""
	}
	p.mu.Lock()
	ro, known := p.readOnly[full]
	p.mu.Unlock()
	switch {
	case !known:
		// The safe way: a call is never sent on a guess. A client lists
		// before it calls; one that does not hears how to.
		return "--read-only, and serve has not seen its annotations: list the tools first"
	case !ro:
		return "--read-only, and it is not annotated readOnlyHint: true"
	}
	return ""
}

// learn notes the readOnlyHint of each of tools, a tools/list answer's
// "tools", as server lists them.
func (p *Policy) learn(server string, tools gjson.Result) {
	if p == nil || !p.ReadOnly {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.readOnly == nil {
		p.readOnly = map[string]bool{}
	}
	tools.ForEach(func(_, t gjson.Result) bool {
		if name := t.Get("name"); name.Type == gjson.String {
			// Only a JSON true says read-only; a missing hint is false.
			p.readOnly[server+p.sep()+name.Str] = t.Get("annotations.readOnlyHint").Type == gjson.True
		}
		return true
	})
}

// active says p refuses some tools, so tools/list answers are filtered.
func (p *Policy) active() bool {
	return p != nil && (len(p.Deny)+len(p.Allow) > 0 || p.ReadOnly)
}

type downstreamKey struct{}

// WithDownstream is ctx naming the downstream client whose Link is
// opened with it, as the call log names it ("stdio", an HTTP session's
// id prefix).
func WithDownstream(ctx context.Context, name string) context.Context {
	return context.WithValue(ctx, downstreamKey{}, name)
}

// downstreamOf is the client ctx names: WithDownstream's, else "http"
// for a link an HTTP request opens, else "stdio".
func downstreamOf(ctx context.Context) string {
	if s, ok := ctx.Value(downstreamKey{}).(string); ok {
		return s
	}
	if ctx.Value(http.ServerContextKey) != nil {
		return "http"
	}
	return "stdio"
}
