package textsafe

import (
	"unicode/utf8"
	"unsafe"
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
	// Stripper's machine, run over the whole text at once: one set of
	// rules for a text held whole and one that arrives in pieces. It only
	// reads its input, so s is not copied to be read as bytes.
	st := Stripper{out: make([]byte, i, len(s))}
	copy(st.out, s)
	st.run(unsafe.Slice(unsafe.StringData(s[i:]), len(s)-i), true)
	return unsafe.String(unsafe.SliceData(st.out), len(st.out))
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
