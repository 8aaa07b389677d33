package client

import (
	"cmp"
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpc-dev/mcpc/internal/fail"
)

// NewSearch is a search of targets with pattern, none answered yet: a
// named target that cannot be used is noted as not searched. interrupt is
// the context cause that means the user interrupted.
func NewSearch(targets []Target, pattern Pattern, interrupt error) *Searches {
	s := NewSearches(targets, Unusable(targets))
	s.pattern, s.interrupt = pattern, interrupt
	return s
}

// Visit searches target i: its session l, open (caps: what its handshake
// declared), or the failure err that kept it closed. Each server's Visit
// writes only its own index, so they run at once.
func (s *Searches) Visit(ctx context.Context, i int, l Lister, caps *mcp.ServerCapabilities, err error) {
	if err != nil {
		s.Failed(i, fail.From(fail.FromContext(ctx, err, s.interrupt)))
		return
	}
	ms, errs := Search(ctx, l, caps, s.targets[i].Name, s.pattern.Match)
	failures := make([]*fail.Error, len(errs))
	for j, err := range errs {
		failures[j] = fail.From(fail.FromContext(ctx, err, s.interrupt))
	}
	s.Found(i, ms, failures)
}

// MatchRows are the text rows of matches (format.MatchLines): server,
// kind, name and description. A resource is named by its URI; a match
// without a description says its title.
func MatchRows(ms []Match) [][4]string {
	rows := make([][4]string, len(ms))
	for i, m := range ms {
		rows[i] = [4]string{m.Server, m.Kind, cmp.Or(m.URI, m.Name), cmp.Or(m.Description, m.Title)}
	}
	return rows
}
