package config

import (
	"errors"
	"fmt"
	"path"
)

// checkToolPattern says what is wrong with an includeTools or
// excludeTools pattern, at load: a bad one would otherwise hide nothing,
// or everything, in silence. path.Match checks the whole pattern even when
// the name does not match.
func checkToolPattern(p string) error {
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
	for _, p := range s.ExcludeTools {
		if ok, _ := path.Match(p, name); ok {
			return fmt.Sprintf("excludeTools %q", p)
		}
	}
	if len(s.IncludeTools) == 0 {
		return ""
	}
	for _, p := range s.IncludeTools {
		if ok, _ := path.Match(p, name); ok {
			return ""
		}
	}
	return "includeTools (no pattern matches)"
}

// HasToolFilter says the entry hides some tools by name.
func (s *Server) HasToolFilter() bool {
	return s != nil && len(s.IncludeTools)+len(s.ExcludeTools) > 0
}
