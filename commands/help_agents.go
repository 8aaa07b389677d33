package commands

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/mcpc-dev/mcpc/internal/fail"
)

// skillName and skillDescription are the Agent Skills frontmatter of
// `mcpc help agents --skill`: what an agent reads to decide to load the
// guide, so the description says when it applies.
const (
	skillName        = "mcpc"
	skillDescription = "Find and call the tools, resources and prompts of MCP (Model Context Protocol) servers from the shell with mcpc: discover with mcpc grep and mcpc list, call with key=value arguments, read JSON on stdout, errors and exit codes on stderr, hold stateful servers in sessions. Use when a task needs an MCP server's tools or data."
)

// agentsHelp is the `mcpc help agents` topic: how a coding agent, running
// mcpc from its shell tool turn by turn, should use it. It is plain text
// that reads as Markdown too (indented lines are code), so the same text is
// the man page's section and the body of the skill. Every `mcpc …` line and
// --flag in it is checked against the command tree by a test.
func agentsHelp() string {
	return `mcpc for coding agents

mcpc is a command-line client for MCP servers. Each invocation connects
to one server, runs one request, prints the result and exits with a status
that says what happened. Run it from your shell tool; it never needs a
terminal, and nothing it starts outlives the command unless you ask.

Find what a server offers:

    mcpc list                     the configured servers and their auth state
    mcpc grep PATTERN             which server has a tool, prompt or resource
    mcpc grep --name '^search'    matching names only
    mcpc list SERVER              a server's tools, one line each
    mcpc list SERVER TOOL         one tool: every argument and an example call
    mcpc list SERVER resources    also: templates, prompts
    mcpc list SERVER TOOL --json -q inputSchema    its input schema as JSON

Call a tool, read a resource, get a prompt:

    mcpc call SERVER TOOL key=value n=3 ok=true   typed by the tool's schema
    mcpc call SERVER TOOL 'tags:=["a","b"]'       a JSON value
    mcpc call SERVER TOOL body=@notes.txt         a file's contents
    mcpc call SERVER TOOL --args '{"q":"bug"}'    all arguments as JSON (@FILE, - for stdin)
    mcpc call SERVER TOOL q=bug --query structuredContent   part of the result
    mcpc read SERVER URI
    mcpc prompt SERVER NAME key=value

Arguments are checked against the tool's input schema before anything is
sent: a wrong name or type is exit 2 naming the argument; fix the call
with what 'mcpc list SERVER TOOL' shows. --query takes a gjson path
(content.0.text, tools.#.name). A server not configured is named by URL,
or with --stdio 'command args'. --timeout 2m bounds a whole invocation.
'mcpc help arguments' and 'mcpc help output' have the details.

Output. When stdout is not a terminal (as in your shell tool) it carries
the result as JSON and nothing else; --json forces JSON anywhere. A result
over --max-bytes is cut, stays valid JSON, and the whole of it is written
to a file whose path is printed. Errors, notes and the server's own
messages go to stderr, as lines "mcpc: error: ..." and "mcpc: hint: ...";
with --json also as one object
{"error":{"code":"...","message":"...","hint":"...","exit":N}}.
The exit status says what happened (the codes of each status as --json
names them):

` + agentExitCodes() + `
Exit 1 means the tool ran and said it failed: its result on stdout says
why. 2 is your command line to fix; 3 the configuration (an untrusted
project .mcp.json is the user's to trust with 'mcpc trust', never yours);
5 and 6 the server or the network, worth one retry at most; 7 the server
refused the request as sent. When a server asks a question while a call
runs, mcpc declines and prints the --answer flags that would answer it:
add them and call again.

Stateful servers. Every call starts a stdio server and stops it, so what
the server keeps (a browser page, an open document, a counter) is gone by
the next call. Hold such a server in a session; later commands naming it
go through the session:

    mcpc session start SERVER --idle 30m
    mcpc call SERVER browser_navigate url=https://example.com
    mcpc call SERVER browser_snapshot
    mcpc session list
    mcpc session stop SERVER

Not --shell: each command of your shell tool may run in a shell of its
own, which would end the session at once. A session that ended is exit 5,
"session SERVER ended": its state is lost; say so before you start it
again.

Logins. Never run 'mcpc login' yourself: it prints a link a person must
open in a browser and waits for them. When a command exits 4, stop and
tell the user which server needs credentials and what the hint says,
e.g. "SERVER needs a login: please run mcpc login SERVER in a terminal
and tell me when it is done", then run the same command again. Do not
retry without them, and do not look for tokens elsewhere.
`
}

// agentExitCodes lists every exit status with the codes that have it,
// from the error model's lists, so the guide cannot drift from it.
func agentExitCodes() string {
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
	return b.String()
}

// agentSkill is the guide as an Agent Skill's SKILL.md: YAML frontmatter
// (the description as a JSON string, which YAML reads as the same
// double-quoted scalar) before the guide.
func agentSkill() string {
	desc, _ := json.Marshal(skillDescription)
	return "---\nname: " + skillName + "\ndescription: " + string(desc) + "\n---\n\n" + agentsHelp()
}

// printSkill answers `mcpc help TOPIC --skill`, which only the agents
// topic has.
func printSkill(w io.Writer, topic string) error {
	if topic != "agents" {
		return usagef("install the guide for coding agents with: mcpc help agents --skill > ~/.claude/skills/mcpc/SKILL.md",
			"--skill is only for the agents topic, not for %s", topicOrNothing(topic))
	}
	_, err := io.WriteString(w, agentSkill())
	return err
}

func topicOrNothing(topic string) string {
	if topic == "" {
		return "'mcpc help' alone"
	}
	return fmt.Sprintf("%q", topic)
}
