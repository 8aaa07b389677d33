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
// rune is decoded (not final), which is left for the next piece.
func (s *Stripper) run(b []byte, final bool) int {
	i := 0
	for i < len(b) {
		c := b[i]
		switch s.state {
		case groundState:
			if c < 0x80 {
				if c == 0x1b {
					s.state = escState
					i++
					continue
				}
				// A run of bytes StripControl keeps.
				j := i + cleanPrefix(b[i:])
				if j > i {
					s.out = append(s.out, b[i:j]...)
					i = j
					continue
				}
				i++ // other C0 controls, CR and DEL
				continue
			}
			if !final && !utf8.FullRune(b[i:]) {
				return i
			}
			r, size := utf8.DecodeRune(b[i:])
			switch {
			case r == utf8.RuneError && size == 1:
				i++
				if c <= 0x9f {
					if c == 0x9b {
						s.state = csiState
					}
				} else {
					s.out = append(s.out, "\uFFFD"...)
				}
			case r >= 0x80 && r <= 0x9f:
				i += size
				switch r {
				case 0x9b:
					s.state = csiState
				case 0x9d:
					s.state, s.bel = stringState, true
				case 0x90, 0x98, 0x9e, 0x9f:
					s.state, s.bel = stringState, false
				}
			case isBidiControl(r):
				i += size
			default:
				j := i + size + cleanPrefix(b[i+size:])
				s.out = append(s.out, b[i:j]...)
				i = j
			}
		case escState:
			switch {
			case c == '[':
				s.state = csiState
				i++
			case c == ']':
				s.state, s.bel = stringState, true
				i++
			case c == 'P' || c == 'X' || c == '^' || c == '_':
				s.state, s.bel = stringState, false
				i++
			default:
				s.state = escInterState
				i += s.sequence(c, 0x2f, 0x30)
			}
		case escInterState:
			i += s.sequence(c, 0x2f, 0x30)
		case csiState:
			i += s.sequence(c, 0x3f, 0x40)
		case stringState:
			switch {
			case c == 0x07 && s.bel, c == 0x18, c == 0x1a:
				s.state = groundState
				i++
			case c == 0x1b:
				s.state = stringEscState
				i++
			case c < 0x80:
				i++
			default:
				if !final && !utf8.FullRune(b[i:]) {
					return i
				}
				r, size := utf8.DecodeRune(b[i:])
				if r == 0x9c || (r == utf8.RuneError && size == 1 && c == 0x9c) {
					s.state = groundState
				}
				i += size
			}
		case stringEscState:
			if c == '\\' {
				s.state = groundState
				i++
			} else {
				// The ESC ends the string and begins a sequence of its own.
				s.state = escState
			}
		}
	}
	return i
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
