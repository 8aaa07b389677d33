// Package shellwords quotes words for a POSIX shell (and for PowerShell,
// for the words shell completion puts on its command line) and splits a
// command line back into words: the command lines mcpc prints for the user
// to paste (hints, examples), and the --stdio command it is given, which
// it splits itself since it never hands a command to a shell.
package shellwords

import (
	"errors"
	"strings"
)

// Quote spells s as one word that sh, dash, bash and zsh all read back
// unchanged: as it is when it holds only letters, digits and characters
// no shell treats specially anywhere in a word, else in single quotes (a
// quote inside written '\”). The safe characters leave out "~" and "="
// at the start (tilde expansion; zsh's =cmd expansion), "#" (a comment
// at the start), "!" and "^" (history expansion in interactive bash and
// zsh), and every glob, quote, expansion and operator character.
func Quote(s string) string {
	if s != "" && s[0] != '=' && strings.Trim(s, safe) == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

const safe = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-"

// QuotePwsh spells s as one argument PowerShell passes unchanged: as it
// is when it holds only characters PowerShell reads as plain text in an
// argument, else in single quotes, inside which nothing is expanded and a
// single quote is written twice. PowerShell takes the typographic single
// quotes (U+2018 to U+201B) for ' as well, so those are doubled too. The
// safe characters leave out what PowerShell reads anywhere in an argument
// ($ ` ' " ; , | & ( ) { } @ # < > and blanks) and a leading "-", which
// "--%" (stop parsing) turns into syntax.
func QuotePwsh(s string) string {
	if s != "" && s[0] != '-' && strings.Trim(s, safePwsh) == "" {
		return s
	}
	var b strings.Builder
	b.WriteByte('\'')
	for _, r := range s {
		if r == '\'' || r >= '\u2018' && r <= '\u201b' {
			b.WriteRune(r)
		}
		b.WriteRune(r)
	}
	b.WriteByte('\'')
	return b.String()
}

const safePwsh = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_+=:./-"

// Join spells words as a command line a shell runs as these words. The
// first word is quoted also when a shell would read it as something other
// than a command name: an assignment (NAME=value) or a reserved word.
func Join(words []string) string {
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = Quote(w)
		if i == 0 && quoted[0] == w && (strings.Contains(w, "=") || reserved[w]) {
			quoted[0] = "'" + w + "'"
		}
	}
	return strings.Join(quoted, " ")
}

// reserved are the words sh, bash and zsh read as syntax at the start of
// a command, and that Quote leaves as they are.
var reserved = map[string]bool{
	"case": true, "do": true, "done": true, "elif": true, "else": true, "esac": true, "fi": true,
	"for": true, "if": true, "in": true, "then": true, "until": true, "while": true,
	"function": true, "select": true, "time": true, "coproc": true, // bash
	"foreach": true, "end": true, "repeat": true, "nocorrect": true, // zsh
}

// Split splits a command line into words the way a POSIX shell tokenizes
// it (single quotes, double quotes, backslashes), with no expansion of
// any kind.
func Split(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\'':
			inWord = true
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, errors.New("unterminated single quote")
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
		case c == '"':
			inWord = true
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\\\"$`", s[i+1]) >= 0 {
					i++
				}
				cur.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, errors.New("unterminated double quote")
			}
		case c == '\\':
			inWord = true
			if i+1 < len(s) {
				i++
				cur.WriteByte(s[i])
			}
		default:
			inWord = true
			cur.WriteByte(c)
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}
