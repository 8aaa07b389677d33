package completions

import "strings"

// TemplateMatch is where a word being typed stands in a URI template.
type TemplateMatch struct {
	Prefix   string            // the word up to the variable being typed, or the template's text up to its first variable
	Variable string            // the variable being typed; "" when the word ends before any
	Partial  string            // what of it is typed
	Vars     map[string]string // the variables before it
}

// MatchTemplate matches word against a level-1 URI template (RFC 6570
// {name} expressions; operators are not completed). A variable's value runs
// up to the template's next literal character.
func MatchTemplate(tpl, word string) (TemplateMatch, bool) {
	m := TemplateMatch{Vars: map[string]string{}}
	w := 0
	for i := 0; i < len(tpl); {
		if tpl[i] != '{' {
			if w == len(word) {
				// The word ends in the template's text: offer it up to
				// the next variable.
				end := strings.IndexByte(tpl[i:], '{')
				if end < 0 {
					end = len(tpl) - i
				}
				m.Prefix = word + tpl[i:i+end]
				return m, true
			}
			if tpl[i] != word[w] {
				return m, false
			}
			i, w = i+1, w+1
			continue
		}
		end := strings.IndexByte(tpl[i:], '}')
		if end < 0 {
			return m, false
		}
		name := tpl[i+1 : i+end]
		if name == "" || strings.ContainsAny(name, "+#./;?&,*:") {
			return m, false
		}
		i += end + 1
		stop := len(word)
		if i < len(tpl) {
			if j := strings.IndexByte(word[w:], tpl[i]); j >= 0 {
				stop = w + j
			}
		}
		if stop == len(word) {
			m.Prefix, m.Variable, m.Partial = word[:w], name, word[w:]
			return m, true
		}
		m.Vars[name] = word[w:stop]
		w = stop
	}
	return m, false
}
