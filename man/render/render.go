// Package render turns the command tree and mcpc's written sections into the
// roff manual page. Only the test that keeps man/mcpc.1 current uses it, so
// the markdown and roff libraries stay out of the mcpc binary.
package render

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/cpuguy83/go-md2man/v2/md2man"
	docs "github.com/urfave/cli-docs/v3"
	"github.com/urfave/cli/v3"

	"github.com/mcpc-dev/mcpc/man"
)

// Render returns the page in roff (man macros).
func Render(p man.Page) ([]byte, error) {
	md, err := docs.ToMarkdown(p.Root)
	if err != nil {
		return nil, fmt.Errorf("rendering the command tree: %w", err)
	}
	md = optionLines(md)
	md, err = describeCommands(md, p.Root)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%% %s 1\n\n", strings.ToUpper(p.Root.Name))
	b.WriteString(md)
	for _, s := range p.Topics {
		fmt.Fprintf(&b, "\n# %s\n\n```\n%s```\n", s.Title, s.Text)
	}
	b.WriteString("\n# EXAMPLES\n")
	for _, e := range p.Examples {
		fmt.Fprintf(&b, "\n%s:\n\n```\n%s\n```\n", capitalize(e.What), e.Line)
	}
	b.WriteString("\n" + man.Written)
	return escape(md2man.Render([]byte(b.String()))), nil
}

// escape fixes what md2man leaves for troff to trip on: a line of text
// that starts with ' is read as a request, and characters beyond ASCII
// are only safe as \[uXXXX] escapes.
func escape(roff []byte) []byte {
	var b strings.Builder
	for _, line := range strings.SplitAfter(string(roff), "\n") {
		if strings.HasPrefix(line, "'") {
			b.WriteString(`\&`)
		}
		for _, r := range line {
			if r > 0x7e && r != utf8.RuneError {
				fmt.Fprintf(&b, `\[u%04X]`, r)
				continue
			}
			b.WriteRune(r)
		}
	}
	return []byte(b.String())
}

// describeCommands adds each command's arguments and description under its
// heading: cli-docs lists a command's usage line and flags only.
func describeCommands(md string, root *cli.Command) (string, error) {
	for _, c := range root.VisibleCommands() {
		head := "\n## " + strings.Join(c.Names(), ", ") + "\n\n"
		if c.Usage != "" {
			head += c.Usage + "\n"
		}
		i := strings.Index(md, head)
		if i < 0 {
			return "", fmt.Errorf("man: no section for command %q in the generated page", c.Name)
		}
		var add strings.Builder
		fmt.Fprintf(&add, "\n```\n%s %s %s\n```\n", root.Name, c.Name, c.ArgsUsage)
		if c.Description != "" {
			add.WriteString("\n" + c.Description + "\n")
		}
		at := i + len(head)
		md = md[:at] + add.String() + md[at:]
	}
	return md, nil
}

var (
	// valueOption is cli-docs' line for a flag that takes a value: it
	// writes ="" (the empty string, whatever the flag's type) where the
	// value goes.
	valueOption = regexp.MustCompile("(?m)^(\\*\\*--[^*\n]+\\*\\*)=\"\": (.*)$")
	placeholder = regexp.MustCompile("`([^`]+)`")
)

// optionLines writes each option as a reader meets it on the command
// line: a value option with its placeholder (the usage's first `WORD`,
// as urfave/cli's own help shows it) instead of ="", and a switch without
// cli-docs' "(default: false)", which every switch would have.
func optionLines(md string) string {
	md = valueOption.ReplaceAllStringFunc(md, func(line string) string {
		m := valueOption.FindStringSubmatch(line)
		value := "VALUE"
		if p := placeholder.FindStringSubmatch(m[2]); p != nil {
			value = p[1]
		}
		return m[1] + " *" + value + "*: " + m[2]
	})
	return strings.ReplaceAll(md, " (default: false)\n", "\n")
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
