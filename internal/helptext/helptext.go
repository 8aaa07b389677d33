// Package helptext holds the prose of `mcpc help TOPIC`, which the man page
// carries too: content in text files, not in Go strings, so that each topic
// is written once and reads as it prints. What a topic states that code
// owns (exit statuses, defaults) is filled in when it is printed, never
// copied into the text.
package helptext

import (
	"embed"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"text/template"

	"github.com/mcpc-dev/mcpc/internal/fail"
)

//go:embed topics/*.txt
var files embed.FS

// Topic is one help page that is not a command.
type Topic struct {
	Name  string // mcpc help NAME; its text is topics/NAME.txt
	Title string // its section heading in the man page
}

// Topics are in the order help lists them and the man page prints them:
// the reference topics, then the guides that were once README sections.
var Topics = []Topic{
	{"exit-codes", "EXIT STATUS"},
	{"config", "CONFIGURATION"},
	{"auth", "AUTHENTICATION"},
	{"sessions", "SESSIONS"},
	{"serve", "LENDING A SERVER TO AN MCP HOST"},
	{"agents", "CODING AGENTS"},
	{"arguments", "ARGUMENTS"},
	{"output", "OUTPUT"},
	{"answers", "WHEN THE SERVER ASKS"},
	{"tasks", "TASKS"},
	{"watch", "WATCHING WHAT A SERVER PUSHES"},
	{"skills", "SKILLS"},
	{"ci", "CI, HEALTH CHECKS AND SCHEMA DRIFT"},
	{"http", "HTTP SERVERS"},
	{"record", "RECORDING A SERVER'S TRAFFIC"},
	{"eras", "PROTOCOL ERAS AND CACHE"},
	{"servers", "SERVERS RUN BY MCPC"},
	{"oauth", "OAUTH LOGIN AND THE AUTH ENTRY"},
}

// Values are the defaults a topic states that packages above this leaf
// own; the caller gives them as the help prints them ("64MiB", "15m").
type Values struct {
	MaxMessage string // the default of "maxMessage" (config)
	KeepAlive  string // the idle time of "keepAlive": true (config)
	// ProbeTimeout is the default of --probe-timeout (eras).
	ProbeTimeout string
	// SessionIdle is the default of session start --idle (sessions).
	SessionIdle string
	// RecordMax is the default of --record-max (record).
	RecordMax string
}

// funcs are the parts computed here, from the error model's lists; made
// when asked, as the templates are, so that start-up builds nothing.
func funcs() template.FuncMap {
	return template.FuncMap{
		"statusTable":   statusTable,
		"codeTable":     codeTable,
		"codesByStatus": codesByStatus,
	}
}

// Text is the topic's text with its computed parts filled in.
func (t Topic) Text(v Values) string {
	// Every value is given, or a topic would print a blank where a
	// default belongs; TestTopics and the commands tests run this.
	rv := reflect.ValueOf(v)
	for i := range rv.NumField() {
		if rv.Field(i).String() == "" {
			panic("helptext: Values." + rv.Type().Field(i).Name + " not given")
		}
	}
	src, err := files.ReadFile("topics/" + t.Name + ".txt")
	if err != nil {
		panic("helptext: no text for topic " + t.Name) // TestTopics sees each
	}
	// Parsed when asked, not at start-up: only mcpc help and man read them.
	tpl := template.Must(template.New(t.Name).Funcs(funcs()).Parse(string(src)))
	var b strings.Builder
	if err := tpl.Execute(&b, v); err != nil {
		panic("helptext: " + err.Error())
	}
	return b.String()
}

// Find returns the topic called name.
func Find(name string) (Topic, bool) {
	for _, t := range Topics {
		if t.Name == name {
			return t, true
		}
	}
	return Topic{}, false
}

// Names are the topics' names, for usage lines and hints.
func Names() []string {
	var names []string
	for _, t := range Topics {
		names = append(names, t.Name)
	}
	return names
}

// SkillName and SkillDescription are the Agent Skills frontmatter of
// `mcpc help agents --skill`: what an agent reads to decide to load the
// guide, so the description says when it applies.
const (
	SkillName        = "mcpc"
	SkillDescription = "Find and call the tools, resources and prompts of MCP (Model Context Protocol) servers from the shell with mcpc: discover with mcpc grep and mcpc list, call with key=value arguments, read JSON on stdout, errors and exit codes on stderr, hold stateful servers in sessions. Use when a task needs an MCP server's tools or data."
)

// Skill is the agents guide as an Agent Skill's SKILL.md: YAML frontmatter
// (the description as a JSON string, which YAML reads as the same
// double-quoted scalar) before the guide, which is plain text that reads
// as Markdown too (indented lines are code).
func Skill(v Values) string {
	desc, _ := json.Marshal(SkillDescription)
	t, _ := Find("agents")
	return "---\nname: " + SkillName + "\ndescription: " + string(desc) + "\n---\n\n" + t.Text(v)
}

// statusTable is every exit status and what it means, wrapped to the width
// of the topics and continued under the meaning's first word.
func statusTable() string {
	var b strings.Builder
	for _, st := range fail.Statuses {
		for i, line := range wrapWords(st.Meaning, 70) {
			if i == 0 {
				fmt.Fprintf(&b, "%4d  %s\n", st.Exit, line)
			} else {
				fmt.Fprintf(&b, "      %s\n", line)
			}
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// codeTable is every stable code with its status and meaning.
func codeTable() string {
	var b strings.Builder
	for _, c := range fail.Codes {
		fmt.Fprintf(&b, "  %-16s %3d  %s\n", c.Code, c.Exit, c.Meaning)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// codesByStatus lists every exit status with the codes that have it, so
// the agents guide cannot drift from the error model.
func codesByStatus() string {
	var b strings.Builder
	for _, st := range fail.Statuses {
		var codes []string
		for _, c := range fail.CodesOf(st.Exit) {
			codes = append(codes, string(c))
		}
		if len(codes) == 0 {
			codes = []string{"success"}
		}
		fmt.Fprintf(&b, "    %3d  %s\n", st.Exit, strings.Join(codes, ", "))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// wrapWords breaks text at spaces into lines of at most width bytes (a
// longer word stands on a line of its own).
func wrapWords(text string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(text) {
		if line != "" && len(line)+1+len(w) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	return append(lines, line)
}
