package format

import (
	"strings"
	"unicode/utf8"
)

// StripControl makes server-provided text safe to print on a terminal. A server
// could otherwise move the cursor, rewrite earlier lines, set the window title,
// write to the clipboard (OSC 52) or disguise text, so it removes:
//
//   - escape sequences: CSI (ESC [ … final), OSC (ESC ] … BEL or ST), DCS, SOS,
//     PM and APC strings (ESC P/X/^/_ … ST), and two-byte ESC sequences;
//   - C1 controls U+0080–U+009F, with the sequences that U+009B (CSI), U+009D
//     (OSC), U+0090, U+0098, U+009E and U+009F introduce; a raw byte 0x80–0x9F
//     (the 8-bit form) is removed too, and a raw 0x9B takes its CSI parameters
//     with it;
//   - every other C0 control and DEL, except newline and tab; a carriage return
//     is dropped, which turns CRLF into LF;
//   - bidirectional overrides and isolates (U+202A–U+202E, U+2066–U+2069).
//
// Other invalid UTF-8 bytes become U+FFFD. The result contains no byte below
// 0x20 other than '\n' and '\t', no DEL, and is valid UTF-8; stripping it again
// changes nothing.
func StripControl(s string) string {
	i := cleanPrefix(s)
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	b.WriteString(s[:i])
	for i < len(s) {
		c := s[i]
		switch {
		case c == 0x1b:
			i = skipEscape(s, i+1)
		case c == '\n' || c == '\t' || (c >= 0x20 && c < 0x7f):
			b.WriteByte(c)
			i++
		case c < 0x80: // other C0 controls, CR and DEL
			i++
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			switch {
			case r == utf8.RuneError && size == 1:
				i++
				if c <= 0x9f {
					// A raw C1 byte. Only 0x9B's parameters are removed with
					// it: treating the other raw bytes as string introducers
					// would swallow the rest of a Windows-1252 text, and the
					// text after them is harmless once the byte is gone.
					if c == 0x9b {
						i = skipCSI(s, i)
					}
				} else {
					b.WriteString("\uFFFD")
				}
			case r >= 0x80 && r <= 0x9f:
				i += size
				switch r {
				case 0x9b:
					i = skipCSI(s, i)
				case 0x9d:
					i = skipString(s, i, true)
				case 0x90, 0x98, 0x9e, 0x9f:
					i = skipString(s, i, false)
				}
			case isBidiControl(r):
				i += size
			default:
				b.WriteString(s[i : i+size])
				i += size
			}
		}
	}
	return b.String()
}

// cleanPrefix returns the length of the longest prefix of s that StripControl
// leaves as it is, so that clean text is returned without copying.
func cleanPrefix[T string | []byte](s T) int {
	i := 0
	for i < len(s) {
		c := s[i]
		if c < 0x80 {
			if (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f {
				return i
			}
			i++
			continue
		}
		r, size := decodeRune(s[i:])
		if (r == utf8.RuneError && size == 1) || (r >= 0x80 && r <= 0x9f) || isBidiControl(r) {
			return i
		}
		i += size
	}
	return i
}

func decodeRune[T string | []byte](s T) (rune, int) {
	if b, ok := any(s).([]byte); ok {
		return utf8.DecodeRune(b)
	}
	return utf8.DecodeRuneInString(string(s))
}

func isBidiControl(r rune) bool {
	return (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
}

// skipEscape returns the index just past the escape sequence whose ESC precedes
// s[i].
func skipEscape(s string, i int) int {
	if i >= len(s) {
		return i
	}
	switch c := s[i]; {
	case c == '[':
		return skipCSI(s, i+1)
	case c == ']':
		return skipString(s, i+1, true)
	case c == 'P' || c == 'X' || c == '^' || c == '_':
		return skipString(s, i+1, false)
	case c >= 0x20 && c <= 0x2f:
		// Intermediate bytes, then one final byte (ESC ( B and the like).
		for i < len(s) && s[i] >= 0x20 && s[i] <= 0x2f {
			i++
		}
		if i < len(s) && s[i] >= 0x30 && s[i] <= 0x7e {
			i++
		}
		return i
	case c >= 0x30 && c <= 0x7e:
		return i + 1
	}
	// ESC before anything else: only the ESC goes; what follows is handled on
	// its own.
	return i
}

// skipCSI returns the index past a control sequence's parameter, intermediate
// and final bytes starting at s[i]. A byte that cannot belong to the sequence
// ends it without being consumed, as terminals do.
func skipCSI(s string, i int) int {
	for i < len(s) {
		c := s[i]
		switch {
		case c >= 0x20 && c <= 0x3f:
			i++
		case c >= 0x40 && c <= 0x7e:
			return i + 1
		default:
			return i
		}
	}
	return i
}

// skipString returns the index past a control string (OSC, DCS, SOS, PM, APC)
// whose body starts at s[i]. It ends at ST (ESC \ or U+009C), at BEL for OSC,
// or at CAN/SUB; an ESC that does not start ST ends it and is left to begin a
// new sequence. An unterminated string runs to the end of s, as a terminal
// would swallow it.
func skipString(s string, i int, belEnds bool) int {
	for i < len(s) {
		c := s[i]
		switch {
		case c == 0x07 && belEnds:
			return i + 1
		case c == 0x18 || c == 0x1a:
			return i + 1
		case c == 0x1b:
			if i+1 < len(s) && s[i+1] == '\\' {
				return i + 2
			}
			return i
		case c < 0x80:
			i++
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == 0x9c || (r == utf8.RuneError && size == 1 && c == 0x9c) {
				return i + size
			}
			i += size
		}
	}
	return i
}
