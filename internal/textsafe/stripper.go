package textsafe

import (
	"io"
	"unicode/utf8"
)

// Stripper is StripControl for a text that arrives in pieces: it writes to
// its writer what StripControl would return for the whole text, byte for
// byte, whatever the pieces, so that a large text is stripped without being
// held whole. A sequence or a rune split between pieces is carried across
// them as state: at most a partial rune (three bytes) is kept, and an
// unterminated control string costs nothing, being dropped as it arrives.
// Flush ends the text.
type Stripper struct {
	w     io.Writer
	state stripState
	bel   bool // in stringState: BEL ends the string (OSC)
	hold  [utf8.UTFMax]byte
	nhold int
	out   []byte
	err   error
}

// chunk is the most a Stripper strips before it writes, so that what is
// stripped of a large piece is never held whole.
const chunk = 64 << 10

type stripState uint8

const (
	groundState    stripState = iota
	escState                  // after ESC
	escInterState             // after ESC and intermediate bytes
	csiState                  // in a control sequence's parameters
	stringState               // in a control string (OSC, DCS, SOS, PM, APC)
	stringEscState            // in a control string, after ESC
)

// NewStripper returns a Stripper writing to w.
func NewStripper(w io.Writer) *Stripper {
	return &Stripper{w: w}
}

// Write strips p and writes what it can of the result; it returns the
// first error of the underlying writer, and then writes nothing more.
func (s *Stripper) Write(p []byte) (int, error) {
	n := len(p)
	// A chunk at a time, so that what is stripped of a large piece is not
	// held whole either.
	for len(p) > 0 {
		k := min(len(p), chunk)
		if err := s.write(p[:k]); err != nil {
			return 0, err
		}
		p = p[k:]
	}
	return n, s.err
}

func (s *Stripper) write(p []byte) error {
	if s.err != nil {
		return s.err
	}
	s.out = s.out[:0]
	if s.nhold > 0 {
		// The held partial rune and enough of p to complete it: the
		// machine either consumes all of the held bytes or, when p is that
		// short, stops at a partial rune again.
		var tmp [2 * utf8.UTFMax]byte
		k := min(len(p), utf8.UTFMax)
		t := append(append(tmp[:0], s.hold[:s.nhold]...), p[:k]...)
		c := s.run(t, false)
		if k == len(p) {
			s.nhold = copy(s.hold[:], t[c:])
			return s.emit()
		}
		p = p[c-s.nhold:]
		s.nhold = 0
	}
	c := s.run(p, false)
	s.nhold = copy(s.hold[:], p[c:])
	return s.emit()
}

// Flush ends the text: a partial rune left at its end is stripped as
// StripControl strips one at the end of a text. The Stripper can then
// take a new text.
func (s *Stripper) Flush() error {
	if s.err != nil {
		return s.err
	}
	s.out = s.out[:0]
	s.run(s.hold[:s.nhold], true)
	s.nhold, s.state = 0, groundState
	return s.emit()
}

func (s *Stripper) emit() error {
	if len(s.out) > 0 {
		_, s.err = s.w.Write(s.out)
	}
	return s.err
}

// run strips b into s.out, following StripControl's rules, and returns how
// much of b it consumed: all of it unless b ends in a partial rune where a
// rune is decoded (not final), which is left for the next piece. Each state
// takes what it can of b and says how much (-1: a partial rune).
func (s *Stripper) run(b []byte, final bool) int {
	i := 0
	for i < len(b) {
		var n int
		switch s.state {
		case groundState:
			n = s.ground(b[i:], final)
		case escState:
			n = s.esc(b[i])
		case escInterState:
			n = s.sequence(b[i], 0x2f, 0x30)
		case csiState:
			n = s.sequence(b[i], 0x3f, 0x40)
		case stringState:
			n = s.controlString(b[i:], final)
		case stringEscState:
			n = s.stringEsc(b[i])
		}
		if n < 0 {
			return i
		}
		i += n
	}
	return i
}

// ground takes text outside any sequence: what StripControl keeps is
// copied a run at a time, and a control begins its sequence or is dropped.
func (s *Stripper) ground(b []byte, final bool) int {
	c := b[0]
	if c < 0x80 {
		if c == 0x1b {
			s.state = escState
			return 1
		}
		// A run of bytes StripControl keeps.
		if j := cleanPrefix(b); j > 0 {
			s.out = append(s.out, b[:j]...)
			return j
		}
		return 1 // other C0 controls, CR and DEL
	}
	if !final && !utf8.FullRune(b) {
		return -1
	}
	r, size := utf8.DecodeRune(b)
	switch {
	case r == utf8.RuneError && size == 1:
		// A raw byte: 0x80–0x9f is an 8-bit C1 control, of which only
		// CSI takes its parameters with it; above, invalid UTF-8.
		if c == 0x9b {
			s.state = csiState
		} else if c > 0x9f {
			s.out = append(s.out, "\uFFFD"...)
		}
		return 1
	case r >= 0x80 && r <= 0x9f:
		switch r {
		case 0x9b:
			s.state = csiState
		case 0x9d:
			s.state, s.bel = stringState, true
		case 0x90, 0x98, 0x9e, 0x9f:
			s.state, s.bel = stringState, false
		}
		return size
	case isBidiControl(r):
		return size
	}
	j := size + cleanPrefix(b[size:])
	s.out = append(s.out, b[:j]...)
	return j
}

// esc takes the byte after an ESC: it opens a control sequence or string,
// or is a two-byte sequence's (or its intermediates').
func (s *Stripper) esc(c byte) int {
	switch {
	case c == '[':
		s.state = csiState
	case c == ']':
		s.state, s.bel = stringState, true
	case c == 'P' || c == 'X' || c == '^' || c == '_':
		s.state, s.bel = stringState, false
	default:
		s.state = escInterState
		return s.sequence(c, 0x2f, 0x30)
	}
	return 1
}

// controlString drops a control string's content up to its terminator:
// ST (ESC \ or U+009C), BEL for OSC, or CAN and SUB, which cancel it.
func (s *Stripper) controlString(b []byte, final bool) int {
	switch c := b[0]; {
	case c == 0x07 && s.bel, c == 0x18, c == 0x1a:
		s.state = groundState
		return 1
	case c == 0x1b:
		s.state = stringEscState
		return 1
	case c < 0x80:
		return 1
	}
	if !final && !utf8.FullRune(b) {
		return -1
	}
	r, size := utf8.DecodeRune(b)
	if r == 0x9c || (r == utf8.RuneError && size == 1 && b[0] == 0x9c) {
		s.state = groundState
	}
	return size
}

// stringEsc takes the byte after an ESC in a control string: a backslash
// completes ST; anything else means the ESC ended the string and begins a
// sequence of its own, so c is taken again in that state.
func (s *Stripper) stringEsc(c byte) int {
	if c == '\\' {
		s.state = groundState
		return 1
	}
	s.state = escState
	return 0
}

// sequence takes byte c of an escape or control sequence whose bytes 0x20
// to more continue it and final to 0x7e end it. Any other byte ends it
// without being consumed, as terminals do. It returns the bytes consumed.
func (s *Stripper) sequence(c, more, final byte) int {
	switch {
	case c >= 0x20 && c <= more:
		return 1
	case c >= final && c <= 0x7e:
		s.state = groundState
		return 1
	}
	s.state = groundState
	return 0
}
