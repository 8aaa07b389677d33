package elicit

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpc-dev/mcpc/internal/textsafe"
)

// Prompter asks a person at the terminal, field by field. Lines are read
// in cooked mode, so the terminal does the editing and Ctrl-C reaches mcpc
// as SIGINT, which cancels the invocation (exit 130); Ctrl-D declines.
type Prompter struct {
	in    io.Reader
	out   io.Writer
	word  func(s string, types []string) any
	once  sync.Once
	lines chan line
}

type line struct {
	text string
	err  error
}

// NewPrompter asks on out and reads the answers from in; word reads a
// typed answer of the given JSON Schema types as a key=value word would be
// read, so the two agree.
func NewPrompter(in io.Reader, out io.Writer, word func(s string, types []string) any) *Prompter {
	return &Prompter{in: in, out: out, word: word, lines: make(chan line)}
}

// readLine returns the next line typed, io.EOF on Ctrl-D, or the context's
// error. The read itself cannot be interrupted, so it runs on its own
// goroutine for the life of the process.
func (p *Prompter) readLine(ctx context.Context) (string, error) {
	p.once.Do(func() {
		go func() {
			r := bufio.NewReader(p.in)
			for {
				s, err := r.ReadString('\n')
				if err != nil && s == "" {
					p.lines <- line{err: err}
					close(p.lines)
					return
				}
				p.lines <- line{text: strings.TrimRight(s, "\r\n")}
			}
		}()
	})
	select {
	case <-ctx.Done():
		fmt.Fprintln(p.out)
		return "", ctx.Err()
	case l, ok := <-p.lines:
		if !ok {
			return "", io.EOF
		}
		return l.text, l.err
	}
}

// confirm asks a yes/no question; Enter gives def, Ctrl-D no.
func (p *Prompter) confirm(ctx context.Context, question string, def bool) (bool, error) {
	for {
		fmt.Fprint(p.out, question)
		s, err := p.readLine(ctx)
		if errors.Is(err, io.EOF) {
			fmt.Fprintln(p.out)
			return false, nil
		}
		if err != nil {
			return false, err
		}
		if b, ok := yesNo(s); ok {
			return b, nil
		}
		if strings.TrimSpace(s) == "" {
			return def, nil
		}
		fmt.Fprintln(p.out, "  answer y or n")
	}
}

// form asks for each missing field, checks every answer against its
// schema before taking it, and asks before sending.
func (p *Prompter) form(ctx context.Context, server, message string, fields []*field, content map[string]any, missing []*field) (*mcp.ElicitResult, error) {
	decline := &mcp.ElicitResult{Action: "decline"}
	fmt.Fprintf(p.out, "mcpc: %s asks: %s\n", server, textsafe.OneLine(textsafe.StripControl(message)))
	fmt.Fprintln(p.out, "mcpc: (Enter takes the [default]; Ctrl-D declines; Ctrl-C cancels)")
	for _, f := range missing {
		fmt.Fprintln(p.out, f.line())
		if len(f.choices) > 0 {
			var cs []string
			for i, c := range f.choices {
				s := strconv.Itoa(i+1) + ") " + c.value
				if c.title != "" {
					s = strconv.Itoa(i+1) + ") " + c.title + " (" + c.value + ")"
				}
				cs = append(cs, textsafe.OneLine(s))
			}
			fmt.Fprintf(p.out, "  %s\n", strings.Join(cs, "  "))
		}
		for {
			fmt.Fprintf(p.out, "  %s> ", f.promptHint())
			s, err := p.readLine(ctx)
			if errors.Is(err, io.EOF) {
				fmt.Fprintln(p.out, "\nmcpc: declined")
				return decline, nil
			}
			if err != nil {
				return nil, err
			}
			v, skip, err := f.parse(s, p.word)
			if err == nil && !skip {
				err = f.check(v)
			}
			if err != nil {
				fmt.Fprintf(p.out, "  %s\n", err)
				continue
			}
			if !skip {
				content[f.name] = v
			}
			break
		}
	}
	question := "Accept? [Y/n] "
	if len(fields) > 0 {
		b, _ := json.Marshal(content)
		fmt.Fprintf(p.out, "mcpc: answers: %s\n", b)
		question = "Send these answers? [Y/n] "
	}
	ok, err := p.confirm(ctx, question, true)
	if err != nil {
		return nil, err
	}
	if !ok {
		fmt.Fprintln(p.out, "mcpc: declined")
		return decline, nil
	}
	return &mcp.ElicitResult{Action: "accept", Content: content}, nil
}

// promptHint shows the default and, for yes/no fields, the choices.
func (f *field) promptHint() string {
	var parts []string
	if f.isBool() {
		parts = append(parts, "y/n")
	}
	if f.def != nil {
		parts = append(parts, "["+textsafe.OneLine(display(f.def))+"]")
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, " ") + " "
}

// display shows a value as a person would type it: text bare, a list
// comma-separated, anything else as JSON.
func display(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case []any:
		var out []string
		for _, x := range v {
			out = append(out, display(x))
		}
		return strings.Join(out, ", ")
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func (f *field) isBool() bool {
	return len(f.types) == 1 && f.types[0] == "boolean"
}

// parse reads one typed answer: a choice by number or value (several,
// comma-separated, for a multi-select), y/n for a boolean, and otherwise
// as a key=value word would be read. Empty input takes the default, skips
// an optional field, or is refused for a required one.
func (f *field) parse(s string, word func(string, []string) any) (v any, skip bool, err error) {
	s = strings.TrimSpace(s)
	if s == "" {
		switch {
		case f.def != nil:
			return f.def, false, nil
		case !f.required:
			return nil, true, nil
		}
		return nil, false, errors.New("a value is required")
	}
	switch {
	case f.multi && len(f.choices) > 0:
		out := []any{}
		for _, part := range strings.Split(s, ",") {
			c, err := f.pick(strings.TrimSpace(part))
			if err != nil {
				return nil, false, err
			}
			out = append(out, c)
		}
		return out, false, nil
	case len(f.choices) > 0:
		c, err := f.pick(s)
		return c, false, err
	case f.isBool():
		if b, ok := yesNo(s); ok {
			return b, false, nil
		}
		return nil, false, errors.New("answer y or n")
	}
	return plainJSON(word(s, f.types)), false, nil
}

// pick finds a choice by its number in the list or by its value.
func (f *field) pick(s string) (string, error) {
	if i, err := strconv.Atoi(s); err == nil && i >= 1 && i <= len(f.choices) {
		return f.choices[i-1].value, nil
	}
	for _, c := range f.choices {
		if c.value == s {
			return c.value, nil
		}
	}
	return "", fmt.Errorf("%q is not one of the choices: give its number or value", s)
}

func yesNo(s string) (bool, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "y", "yes", "true":
		return true, true
	case "n", "no", "false":
		return false, true
	}
	return false, false
}
