package client

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"regexp/syntax"
	"strings"

	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/textsafe"
)

// Pattern is mcpc grep's match: re finds a match's name (a resource's
// URI too) and, unless NamesOnly, its title or description.
type Pattern struct {
	Re        *regexp.Regexp
	NamesOnly bool
}

// CompilePattern is mcpc grep's PATTERN as a Pattern: a case-insensitive
// regular expression in Go's RE2 syntax. One that does not compile is a
// usage error that quotes it and says what is wrong as the user wrote it.
func CompilePattern(pattern string, namesOnly bool) (Pattern, error) {
	re, err := regexp.Compile("(?i)" + pattern)
	if err != nil {
		why := err.Error()
		if se := (*syntax.Error)(nil); errors.As(err, &se) {
			why = fmt.Sprintf("%s: %q", se.Code, strings.TrimPrefix(se.Expr, "(?i)"))
		}
		return Pattern{}, fail.New(fail.Usage, "PATTERN is a regular expression in Go's RE2 syntax: https://github.com/google/re2/wiki/Syntax",
			"invalid PATTERN %q: %s", pattern, why)
	}
	return Pattern{Re: re, NamesOnly: namesOnly}, nil
}

// Match reports whether the pattern finds m.
func (p Pattern) Match(m Match) bool {
	fields := []string{m.Name, m.URI}
	if !p.NamesOnly {
		fields = append(fields, m.Title, m.Description)
	}
	for _, f := range fields {
		if f != "" && p.Re.MatchString(f) {
			return true
		}
	}
	return false
}

// Searches is a search of several servers (mcpc grep) as its servers
// answer: each server's matches, notes and failure are kept by its index
// and told in the targets' order once all are done, so that two runs
// against the same servers say the same thing, whichever answered first.
type Searches struct {
	targets []Target
	found   [][]Match
	notes   [][]string
	failed  []*fail.Error
	// pattern and interrupt are NewSearch's, for Visit.
	pattern   Pattern
	interrupt error
}

// NewSearches is a search of targets, none answered yet; unusable[i] is
// why a named target cannot be used (nil: it can).
func NewSearches(targets []Target, unusable []*fail.Error) *Searches {
	s := &Searches{targets: targets, found: make([][]Match, len(targets)),
		notes: make([][]string, len(targets)), failed: make([]*fail.Error, len(targets))}
	for i, e := range unusable {
		if e != nil {
			s.notSearched(i, e)
		}
	}
	return s
}

func (s *Searches) notSearched(i int, e *fail.Error) {
	s.notes[i] = append(s.notes[i], fmt.Sprintf("%s not searched: %s", textsafe.OneLine(s.targets[i].Name), textsafe.OneLine(e.Msg)))
}

// Failed records that target i could not be searched.
func (s *Searches) Failed(i int, e *fail.Error) {
	s.failed[i] = e
	s.notSearched(i, e)
}

// Found records what target i's Search returned: its matches, and the
// failures of the lists it could not read.
func (s *Searches) Found(i int, ms []Match, listFailures []*fail.Error) {
	for _, e := range listFailures {
		s.notes[i] = append(s.notes[i], fmt.Sprintf("%s: %s", textsafe.OneLine(s.targets[i].Name), textsafe.OneLine(e.Msg)))
	}
	s.found[i] = ms
}

// Done writes the notes to notes, in the targets' order, and returns the
// matches with the search's verdict: nil with a match, ErrNoMatch without;
// a failure when there was no server to search or none could be.
func (s *Searches) Done(notes io.Writer) ([]Match, error) {
	searched := 0
	for i, t := range s.targets {
		for _, n := range s.notes[i] {
			textsafe.Note(notes, "%s", n)
		}
		if s.failed[i] == nil && t.Entry != nil {
			searched++
		}
	}
	var all []Match
	for _, ms := range s.found {
		all = append(all, ms...)
	}
	switch w := MostSevere(s.failed); {
	case len(s.targets) == 0:
		return all, fail.New(fail.Config, "add one with: mcpc config add NAME …, or name a server (or URL) after PATTERN", "no servers to search")
	case searched == 0 && w >= 0:
		worst := s.failed[w]
		return all, &fail.Error{Code: fail.Connection, Err: worst, Hint: worst.Hint,
			Msg: fmt.Sprintf("no server could be searched (%d tried)", len(s.targets))}
	case searched == 0:
		return all, fail.New(fail.Config, "name a server that can be started", "no server could be searched: none of those named can be started")
	case len(all) == 0:
		return all, ErrNoMatch
	}
	return all, nil
}

// ErrNoMatch is a search's verdict when nothing matched: mcpc grep's exit
// 1, with nothing printed.
var ErrNoMatch = &fail.Error{Code: fail.ToolError, Msg: "no match"}
