package commands

import (
	"context"
	"fmt"
	"strings"

	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/client/transport"
	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/fsx"
	"github.com/mcpc-dev/mcpc/internal/units"
	"github.com/urfave/cli/v3"
)

// topics are the help pages that are not commands. The man page carries
// them too, so each is written once.
var topics = []topic{
	{Name: "exit-codes", Title: "EXIT STATUS", Text: exitCodesHelp},
	{Name: "config", Title: "CONFIGURATION", Text: func() string { return configHelp }},
	{Name: "auth", Title: "AUTHENTICATION", Text: func() string { return authHelp }},
	{Name: "sessions", Title: "SESSIONS", Text: func() string { return sessionsHelp }},
	{Name: "agents", Title: "CODING AGENTS", Text: agentsHelp},
}

// topic is one `mcpc help TOPIC` page.
type topic struct {
	Name  string
	Title string // its section heading in the man page
	Text  func() string
}

type helpOptions struct {
	topic string
	skill bool // --skill: the agents topic as an Agent Skill
}

func helpCommand(st *state) *cli.Command {
	return &cli.Command{
		Name:      "help",
		Usage:     "show help for a command, or a topic: " + topicNames(),
		ArgsUsage: "[COMMAND | " + strings.ReplaceAll(topicNames(), ", ", " | ") + "]",
		Metadata: examples(
			"how servers are configured, and which file wins", "mcpc help config",
			"what each exit status means", "mcpc help exit-codes",
			"install the guide for coding agents as a Claude Code skill", "mcpc help agents --skill > ~/.claude/skills/mcpc/SKILL.md",
		),
		Flags: []cli.Flag{&cli.BoolFlag{Name: "skill", Usage: "with the agents topic: print it as an Agent Skill (SKILL.md, with frontmatter)"}},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.Args().Len() > 1 {
				return usagef("", "unexpected argument %q", cmd.Args().Get(1))
			}
			return st.runHelp(ctx, cmd.Root(), helpOptions{topic: cmd.Args().First(), skill: cmd.Bool("skill")})
		},
	}
}

func (st *state) runHelp(ctx context.Context, root *cli.Command, o helpOptions) error {
	if o.skill {
		return printSkill(st.env.Stdout, o.topic)
	}
	if o.topic == "" {
		return cli.ShowRootCommandHelp(root)
	}
	for _, t := range topics {
		if t.Name == o.topic {
			_, err := fmt.Fprint(st.env.Stdout, t.Text())
			return err
		}
	}
	if sub := root.Command(o.topic); sub != nil && !sub.Hidden {
		return cli.ShowCommandHelp(ctx, root, o.topic)
	}
	var cmds []string
	for _, c := range root.VisibleCommands() {
		cmds = append(cmds, c.Name)
	}
	return usagef("topics: "+topicNames()+"; commands: "+strings.Join(cmds, ", "), "no help for %q", o.topic)
}

func topicNames() string {
	var names []string
	for _, t := range topics {
		names = append(names, t.Name)
	}
	return strings.Join(names, ", ")
}

// example is one line of a command's EXAMPLES section.
type example struct {
	What string
	Line string
}

// examples keeps a command's examples in its Metadata, where the help
// template and the man page generator both find them.
func examples(pairs ...string) map[string]any {
	var ex []example
	for i := 0; i+1 < len(pairs); i += 2 {
		ex = append(ex, example{What: pairs[i], Line: pairs[i+1]})
	}
	return map[string]any{"examples": ex}
}

// commandExamples returns the examples of cmd, for the man page.
func commandExamples(cmd *cli.Command) (what, line []string) {
	ex, _ := cmd.Metadata["examples"].([]example)
	for _, e := range ex {
		what, line = append(what, e.What), append(line, e.Line)
	}
	return what, line
}

// commandHelpTemplate is urfave's command help without the global options,
// which the root help lists once, and with the command's examples.
const commandHelpTemplate = `NAME:
   {{template "helpNameTemplate" .}}

USAGE:
   {{template "usageTemplate" .}}{{if .Description}}

DESCRIPTION:
   {{template "descriptionTemplate" .}}{{end}}{{if .VisibleCommands}}

COMMANDS:{{template "visibleCommandTemplate" .}}{{end}}{{if .VisibleFlags}}

OPTIONS:{{template "visibleFlagTemplate" .}}{{end}}{{with index .Metadata "examples"}}

EXAMPLES:{{range .}}
   # {{.What}}
   {{.Line}}{{end}}{{end}}

Global options (--json, --query, --timeout, --config, --stdio, ...): mcpc --help
`

// setHelp gives every command below root the same help layout, and the
// same usage-error handling.
func setHelp(root *cli.Command) {
	var walk func(*cli.Command)
	walk = func(c *cli.Command) {
		for _, sub := range c.Commands {
			sub.CustomHelpTemplate = commandHelpTemplate
			sub.OnUsageError = root.OnUsageError
			walk(sub)
		}
	}
	walk(root)
}

func readFile(path string) ([]byte, error) {
	data, err := fsx.ReadFile(path, config.MaxConfigFile)
	if err != nil {
		return nil, &fail.Error{Code: fail.Config, Msg: fmt.Sprintf("cannot read %s: %v", path, err), Err: err}
	}
	return data, nil
}

// configHelp states defaults from the constants they describe.
var configHelp = `mcpc configuration

Servers are read from these files, lowest precedence first; a later file that
defines the same name replaces the whole entry:

  1. $XDG_CONFIG_HOME/mcpc/config.json (~/.config/mcpc/config.json)
  2. .mcp.json, found from the working directory upwards (up to the
     repository root or $HOME), once trusted with 'mcpc trust'
  3. --config FILE (repeatable) and MCPC_CONFIG (a list like PATH)
  4. a URL or --stdio 'command args' (or words after --) on the command line

The format is the "mcpServers" object other MCP hosts use:

  {
    "mcpServers": {
      "everything": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything"]},
      "remote": {"url": "https://mcp.example.com/mcp", "bearerTokenEnv": "REMOTE_TOKEN"}
    }
  }

A stdio server has "command", "args", "env", "envFile", "cwd" and
"serverStderr" (show, hide, or a file for its stderr); a Streamable HTTP
server has "url", "headers", and for a private CA or mutual TLS "caFile",
"clientCertFile" and "clientKeyFile" (PEM files, relative to the config
file). HTTPS_PROXY, NO_PROXY and SSL_CERT_FILE are honoured as by any Go
program. Both may set "protocol" (auto, 2026-07-28, 2025-11-25 or
2025-06-18), "timeout" (start-up and handshake: a duration like "90s", or a
JSON number of milliseconds, as Claude Code and Gemini CLI write it),
"probeTimeout" (seconds or "10s": how long a stdio server
gets to answer the server/discover probe) and "maxMessage" (the largest
message accepted from the server, bytes or "128MiB"; default ` + units.SizeText(transport.DefaultMaxMessage) + `); an HTTP
server also "bearerTokenEnv" and "auth" (see 'mcpc help auth'). Unknown
fields and JSON syntax errors are reported with the file, line and column.

"keepAlive" on a server, stdio or HTTP (true: ` + durationText(config.DefaultKeepAlive) + `; a duration like "10m"; false,
the default: off) makes its first use start a session holding the server,
as 'mcpc session start' does, and later uses reuse it until it has been
idle that long; concurrent first uses start one. A session of it that ended
(its server exited, its holder was killed, or an HTTP server forgot its
session) is started again with a note, its state lost.

"includeTools" and "excludeTools" (Gemini CLI's names, which 'mcpc config
import' keeps) are lists of globs (* ? [a-z], as Go's path.Match: * stops
at /) over tool names: with "includeTools" only the tools that match one
are shown, and a tool matching an "excludeTools" glob never is (exclude
wins). A hidden tool is left out of 'mcpc list' and of completion, and
'mcpc call' of it is exit 7 naming the filter; nothing about it is sent.
--no-filter (list, call) lifts the filter of a server from the user file or
a --config file; for a project file's server it is refused (exit 3): the
filter is part of what 'mcpc trust' approved. A malformed glob is exit 3
with its file, line and column.

Entries written for other MCP hosts work as they are:
  "type"       "stdio", "http" or "streamable-http" (Streamable HTTP, never
               falling back), "sse" (the 2024-11-05 HTTP+SSE transport); it
               must agree with "command" or "url"
  "disabled"   true: the server is listed as disabled and never started
               (naming it is exit 3)
  "envFile"    a dotenv file (KEY=VALUE lines, # comments, 'single' or
               "double" quotes, nothing expanded), relative to the config
               file, read when the server starts; "env" wins over it. Its
               values are never printed, not by 'mcpc config' either.
  "autoApprove", "alwaysAllow", "description", "trust": other hosts' UI and
               approval settings, ignored (--verbose says so).
An entry mcpc cannot use (a transport it does not speak, or an invalid
one) makes only that server unusable: 'mcpc list' shows it as unusable,
'mcpc config' marks it, both give the reason in a note (--json: "unusable"
in its row), and naming it is exit 3 with that reason; the file's other
servers are trusted and used as usual.

A project .mcp.json names commands mcpc would run and URLs it would send
credentials to, so its servers are ignored until 'mcpc trust' records the
file's path and SHA-256; any change makes it untrusted again. One mcpc
cannot use (invalid JSON, an unknown field, a wrong type, or not a small
regular file) is skipped: 'mcpc list' and 'mcpc config' name it and the
reason in a note, and with --json add
"errors": [{"file": ..., "message": ...}] beside "servers" (only when there
is one); a server found nowhere else is then exit 3 with that reason. Such an error in the user file or a
--config file stops every command that reads the configuration, with
exit 3; so does one of those files (or the directory it is in) that group
or others can write, or another user than you or root owns: fix it with
'chmod go-w PATH' (a sticky world-writable directory such as /tmp is
allowed).

${VAR} and ${VAR:-default} are expanded in "env" and "headers" values only,
never by a shell. URLs must be https, or http on a loopback host.

'mcpc config' prints the merged result and the file each server came from;
'mcpc list' shows every configured server with its status. 'mcpc config add'
and 'mcpc config remove' edit the user file (--project: the project's).
'mcpc config import' lists and copies servers other apps (Claude, Cursor,
VS Code, Windsurf, Codex, Gemini CLI) have configured. It reads:

  claude-desktop  claude_desktop_config.json in ~/.config/Claude/,
                  ~/Library/Application Support/Claude/, %APPDATA%\Claude\
  claude-code     ~/.claude.json (user, and this project's entries), the
                  project's .mcp.json
  cursor          ~/.cursor/mcp.json, .cursor/mcp.json
  vscode          the user profile's Code/User/mcp.json, .vscode/mcp.json
  windsurf        ~/.codeium/windsurf/mcp_config.json
  codex           $CODEX_HOME/config.toml (~/.codex/config.toml),
                  .codex/config.toml
  gemini          ~/.gemini/settings.json, .gemini/settings.json
`

const authHelp = `mcpc authentication

A Streamable HTTP server that needs credentials gets them from one of:

  bearerTokenEnv   "bearerTokenEnv": "GITHUB_TOKEN" in the server's entry, or
                   --bearer-env VAR: the token in that environment variable
                   is sent as "Authorization: Bearer ...". Tokens are never
                   written in a config file.
  headers          "headers": {"X-Api-Key": "${API_KEY}"}: any header, with
                   ${VAR} taken from the environment; -H 'Name: value' on the
                   command line.
  login            'mcpc login SERVER' (for "auth": {"type": "oauth", ...} or a
                   server without "auth"): prints an authorization link on
                   stderr, never opens a browser, and waits for the browser
                   on 127.0.0.1 (--paste: paste the address it was sent to).
                   The tokens go to the OS keyring (Secret Service, Keychain;
                   no plaintext fallback) and every command uses them,
                   refreshing under a lock file so that concurrent
                   invocations refresh once. A client registered by
                   Dynamic Client Registration is kept per authorization
                   server and reused by later logins. 'mcpc logout SERVER'
                   deletes the tokens and the registration they used;
                   'mcpc list' shows each server's state.
  client creds     "auth": {"type": "client_credentials", "clientId": ...,
                   "issuer": ..., "clientSecretEnv": ...} (or
                   "clientAssertionKeyFile" + "clientAssertionAlg" for a
                   private-key JWT) for machines (CI): a token at connect
                   time, in memory only; the issuer must match exactly.
  workload         "auth": {"type": "workload", "issuer": ...,
                   "assertionEnv": VAR | "assertionFile": PATH |
                   "assertionFrom": "github-actions", "clientId"?,
                   "audience"?, "scopes"?}: CI without stored secrets (below).
  enterprise       "auth": {"type": "enterprise", "issuer": ..., "clientId":
                   ..., "clientSecretEnv" | "clientAssertionKeyFile", "idp":
                   {"issuer", "clientId", "clientSecretEnv"?,
                   "tokenEndpoint"?, "scopes"?}, "idTokenEnv"? |
                   "idTokenFile"?, "scopes"?}: enterprise-managed
                   authorization (below).

CI without stored secrets (workload identity)

A CI job gets a short-lived token signed by its platform (OIDC). With
"type": "workload", mcpc sends it to the authorization server that trusts
that platform (RFC 7523 jwt-bearer grant, one request) and uses the access
token it gets back for this invocation only: no secret to store, rotate or
leak, no login, no keyring. The authorization server must be set up to trust
the platform's issuer and the job's subject; its metadata must name exactly
"issuer". The token is read on each invocation, never printed or written,
and sent only to that issuer's token endpoint.

  GitHub Actions   "assertionFrom": "github-actions": mcpc asks GitHub for
                   a token whose audience is "audience" (default: the
                   issuer). The job needs
                     permissions:
                       id-token: write
                   (GitHub sets ACTIONS_ID_TOKEN_REQUEST_URL and
                   ACTIONS_ID_TOKEN_REQUEST_TOKEN only then).
  GitLab CI        "assertionEnv": "MCP_ID_TOKEN" and in .gitlab-ci.yml
                     id_tokens:
                       MCP_ID_TOKEN:
                         aud: https://as.example.com
  Kubernetes       "assertionFile": "/var/run/secrets/mcp/token" (a relative
                   path is relative to the config file) and a projected
                   service-account token volume:
                     volumes:
                     - name: mcp-token
                       projected:
                         sources:
                         - serviceAccountToken:
                             path: token
                             audience: https://as.example.com
                             expirationSeconds: 3600
                   mounted at /var/run/secrets/mcp.

A variable that is not set, a missing file or a job without id-token: write
is exit 4 naming it, before anything is contacted. A refused token
(invalid_grant: expired or for another audience; invalid_scope;
unauthorized_client) is exit 4 with the server's error and description,
and is not retried.

Enterprise-managed authorization

With "type": "enterprise", the user's ID token from the enterprise identity
provider ("idTokenEnv" or "idTokenFile", e.g. from the company's sign-in
tooling or CI; with neither, from 'mcpc login SERVER') is exchanged at the identity provider for an identity assertion
grant (ID-JAG, RFC 8693 token exchange; its token endpoint from
"idp.tokenEndpoint" or its OpenID Connect discovery), and that at the MCP
authorization server for an access token (jwt-bearer, with the client's
secret from "clientSecretEnv" or its private-key JWT). No consent screen,
no browser; the ID-JAG and the access token stay in memory. A refusal is
exit 4 and names the step: "the identity provider refused the token
exchange" or "the authorization server refused the ID-JAG".

'mcpc login SERVER' of an enterprise server without "idTokenEnv" or
"idTokenFile" runs the OpenID Connect authorization-code flow at the
identity provider (the authorization endpoint from its discovery; PKCE,
state, nonce, scope openid plus "idp.scopes"; the printed link, the loopback
receiver and --paste as for any login). The ID token must name exactly
"idp.issuer", have "idp.clientId" in its audience, be current and carry the
login's nonce; otherwise the login is exit 4 and nothing is stored. The ID
token and the identity provider's refresh token go to the keyring; each
call exchanges the ID token, refreshing it first when it has expired (under
the server's refresh lock). Not logged in: exit 4, hint 'mcpc login
SERVER'; 'mcpc logout SERVER' removes the login.

DPoP-bound tokens

When the authorization server's metadata lists ES256 in
dpop_signing_alg_values_supported, tokens are bound to a key (RFC 9449): a
login keeps it in the keyring record with the tokens; client credentials,
workload and enterprise tokens get one per invocation, in memory. Every
token and MCP request carries a fresh DPoP proof and "Authorization: DPoP".
A nonce demand (use_dpop_nonce) gets one retry; a second one, or a Bearer
token where DPoP was required, is exit 4. "dpop": true in the server entry
forces it on, "dpop": false off.

'mcpc list' shows these states without contacting anything: "workload
(github-actions)", "workload (CI_OIDC_TOKEN not set)", "enterprise via
idp.example.com (logged in, expires in 42m)", "enterprise via
idp.example.com (needs login)", "logged in, expires in 42m, DPoP-bound".

A server that answers 401 or 403 ends the invocation with exit status 4 and a
hint naming what to set or 'mcpc login SERVER'. Without a usable keyring a
login is exit 4 too. Credentials are sent only to the origin they were
configured for, never after a redirect to another one.
`

const sessionsHelp = `mcpc sessions

Every invocation starts its stdio server and stops it. A session holds one
server across invocations instead, so that what it keeps (a counter, a
browser, an open document, a login) survives from one command to the next,
and a server that takes a second to start starts once. Use one when a
script (or an agent at a shell) decides its next call from the last result;
when every call is known in advance, --batch needs no session.

  mcpc session start SERVER          hold a configured server
  mcpc session start --name pw --stdio 'npx -y @playwright/mcp'
  mcpc session start api             an HTTP server: one MCP session
  mcpc session list                  name, status, pid, age, idle left,
                                     requests, the holder's memory
  mcpc session logs NAME             the server's stderr (its last
                                     --max-bytes; --max-bytes 0: all)
  mcpc session stop NAME... | --all  the server and its processes end

Every command that names the server (call, list, read, prompt, ping, ...)
goes through its live session, with the one-shot's output, checks and exit
codes; --no-session starts a server of its own for that command.

Lifetime. A session ends after --idle without a request (default 15m, 0:
until stopped), when its server exits, on 'mcpc session stop', and with
--shell when the shell that ran 'mcpc session start' exits:

  #!/bin/sh
  mcpc session start --shell pw      # ends when this script does
  mcpc call pw browser_navigate url=https://example.com
  mcpc call pw browser_snapshot

The shell is the start command's parent: in a CI step, start the session in
the step that uses it (each step is a shell of its own), and not as the
last command of 'sh -c', which the shell may replace by the command itself.
On Linux the shell is watched through a pidfd, so a reused pid is never
taken for it.

State loss is loud. When a session's server or holder died, every command
naming it is exit 5, "session pw ended: server exited with status 1" (or
how else it ended), never a fresh server behind the script's back. 'mcpc
session logs pw' shows what the server said; 'mcpc session start pw'
starts it again, 'mcpc session stop pw' forgets it. The one exception is
asked for: a server whose entry sets "keepAlive" (see 'mcpc help config')
is started again by its next use, with a note that its state is lost.

A changed entry. When the configured entry changed since the session
started, commands still use the session (its state is what the script
wants) with a note, and 'session list' marks it stale; stop and start it to
use the new definition.

Trust and credentials. A project server's session starts only when its
project file is trusted, and is reached only from where it is (a file
untrusted, revoked or changed since is exit 3, as a one-shot's call). A
session is its entry's: another file's or directory's server of the same
name starts its own (with a note). An invocation whose credentials differ
from the session's (the login or grant, an "env" value or header taken
from its environment with ${VAR}, an envFile's variables, the token of
bearerTokenEnv) is refused, exit 3, naming what differs: another token
never reaches a server started with the first.

Concurrent invocations share the session; none waits for another. Each
request gets an id of the holder's own and its answer goes back to the
invocation that sent it; progress goes to the invocation whose request
carried its token; a request of the server's (a 2025 server's question,
elicitation) tied to a task (its _meta names the related task) goes to the
invocation whose call created the task, or that follows it now (mcpc
task); any other goes to the invocation with requests in flight; when
several have, it is refused with an error that says so, since it names
none of them and a guess could hand one script's --answer to another's
question (a 2026-07-28 server asks in its answer to the request, which
cannot stray); log messages reach every attached invocation, each applying its
own --log-level. An invocation that goes away (Ctrl-C,
--timeout) has its requests cancelled on the server.

What the holder answers itself. A call lists the server's tools to check
its arguments; through a session the holder answers the list (tools,
prompts, resources, resource templates) from the server's last answer, as
long as the server tells of changes to it (a 2025 stdio server that
declares listChanged; a 2026-07-28 stdio server that acknowledges the
holder's subscriptions/listen), and asks afresh after each
notifications/.../list_changed. What it keeps is bounded by the server's
message bound (--max-message). A 2025 server's logging/setLevel is
answered when the server already sends that level (each invocation keeps
its own --log-level). So three calls through a session make one
tools/list; a server that does not tell of changes is asked every time.

HTTP servers. A session to a 2025 Streamable HTTP server keeps its one
Mcp-Session-Id (one initialize, not one per command) and its standalone
stream, so what the server keeps per session survives; when the server no
longer knows the session (404: it restarted, or let it expire), the
session ended, said as above (the command that found it out is exit 5;
with keepAlive the next use starts it again, with a note). A request the
server refuses at the HTTP level (a token revoked or refused after a
refresh, 403, a 5xx, a server gone) is said exactly as a one-shot says
it: the same message, hint and exit code (4, 5); a 401 to a relayed
request (a token expired or revoked early) is first answered as a
one-shot's is, with a new token (a refresh under the server's lock) and
one retry. A 2026-07-28 server
keeps nothing between requests: its session is allowed and saves only
start-up work (discovery, credentials, connections), which 'session start'
and 'session list' note.
The holder reaches the server with the credentials, refresh and checks of
a one-shot call, and a session serves only the credential it started with
(see Trust and credentials above). HTTP+SSE (2024-11-05) servers are not
held (exit 2): their answers come only on the event stream of the
connection that asked. Use them without a session (--no-session, or no
"keepAlive" on the entry).

Only the user gets in: the holder listens on a Unix socket in a private
directory ($XDG_RUNTIME_DIR/mcpc, else under the state directory); on Linux
a connection from another uid is refused, and neither an invocation nor
'mcpc session' connects to a socket, or a socket in a directory, of
another user's (exit 5, "session pw refused"). A holder that takes the
connection but does not answer within 2s (stopped, hung) is said to be
hung: 'session start' and a keepAlive entry's use are exit 6, naming its
pid and 'mcpc session stop NAME', which kills it and its server.

Secrets in the log. What a stdio server is given from the environment
(an "env" value's ${VAR}, an envFile's values) is redacted in 'session
logs', as on mcpc's stderr and in a --server-stderr file, should the
server echo it. A server that stops reading its stdin for 30s ends its
session (its server stopped, the log and 'session list' say why): every
command waiting on it is exit 5, not held up for good.

The cost: the holder is mcpc itself, about 15MiB of memory (14MiB
measured on Linux, shown by 'session list') besides its server, and no CPU
while idle. Sessions hold stdio and Streamable HTTP servers.
`
