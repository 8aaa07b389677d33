package httpx

// ValidHeaderValue reports whether v can be sent as one HTTP header value:
// no control characters but tab (RFC 9110 field-value). A line break
// would end the header early, and smuggle another.
func ValidHeaderValue(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < 0x20 && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

// ValidHeaderName reports whether k is an HTTP field name: one or more
// token characters (RFC 9110 section 5.6.2).
func ValidHeaderName(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case c < 0x80 && c > ' ' && c != 0x7f && !isDelimiter(c):
		default:
			return false
		}
	}
	return true
}

// isDelimiter is one of the characters RFC 9110 keeps out of a token.
func isDelimiter(c byte) bool {
	switch c {
	case '"', '(', ')', ',', '/', ':', ';', '<', '=', '>', '?', '@', '[', '\\', ']', '{', '}':
		return true
	}
	return false
}
