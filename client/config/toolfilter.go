package config

import (
	"errors"
	"fmt"
	"path"
)

// CheckToolPattern says what is wrong with a tool pattern (includeTools,
// excludeTools, serve's --allow and --deny), at load: a bad one would
// otherwise hide nothing, or everything, in silence. path.Match checks the
// whole pattern even when the name does not match.
func CheckToolPattern(p string) error {
	if p == "" {
		return errors.New("an empty pattern matches no tool")
	}
	if _, err := path.Match(p, ""); err != nil {
		return errors.New("not a glob: use *, ? and [a-z] classes, \\ to quote one of them")
	}
	return nil
}

// ToolFilteredBy says why the entry's tool filter hides the tool name, e.g.
// `excludeTools "delete_*"` or `includeTools (no pattern matches)`; "" when
// the tool is shown. An exclude pattern wins over an include pattern.
// Every place that shows or calls tools asks this one function: list, call,
// completion, grep.
func (s *Server) ToolFilteredBy(name string) string {
	if s == nil {
		return ""
	}
	if p, ok := MatchTool(s.ExcludeTools, name); ok {
		return fmt.Sprintf("excludeTools %q", p)
	}
	if _, ok := MatchTool(s.IncludeTools, name); ok || len(s.IncludeTools) == 0 {
		return ""
	}
	return "includeTools (no pattern matches)"
}

// MatchTool is the first of patterns that matches one of names, the one
// way a tool pattern is matched: the entry's filter and serve's --allow
// and --deny.
func MatchTool(patterns []string, names ...string) (string, bool) {
	for _, p := range patterns {
		for _, n := range names {
			if ok, _ := path.Match(p, n); ok {
				return p, true
			}
		}
	}
	return "", false
}

// HasToolFilter says the entry hides some tools by name.
func (s *Server) HasToolFilter() bool {
	return s != nil && len(s.IncludeTools)+len(s.ExcludeTools) > 0
}
