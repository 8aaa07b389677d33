package commands

// guideTopics are the help pages that were once sections of the README:
// here they are printed by mcpc help TOPIC and carried by the man page,
// so each is written once, where a test sees it.
var guideTopics = []topic{
	{Name: "arguments", Title: "ARGUMENTS", Text: func() string { return argumentsHelp }},
	{Name: "output", Title: "OUTPUT", Text: func() string { return outputHelp }},
	{Name: "answers", Title: "WHEN THE SERVER ASKS", Text: func() string { return answersHelp }},
	{Name: "tasks", Title: "TASKS", Text: func() string { return tasksHelp }},
	{Name: "skills", Title: "SKILLS", Text: func() string { return skillsHelp }},
	{Name: "ci", Title: "CI, HEALTH CHECKS AND SCHEMA DRIFT", Text: func() string { return ciHelp }},
	{Name: "http", Title: "HTTP SERVERS", Text: func() string { return httpHelp }},
	{Name: "eras", Title: "PROTOCOL ERAS AND CACHE", Text: func() string { return erasHelp }},
	{Name: "servers", Title: "SERVERS RUN BY MCPC", Text: func() string { return serversHelp }},
	{Name: "oauth", Title: "OAUTH LOGIN AND THE AUTH ENTRY", Text: func() string { return oauthHelp }},
}

// The guide topics follow the reference topics of help.go, in this order.
func init() { topics = append(topics, guideTopics...) }

const argumentsHelp = `mcpc arguments

SERVER is a configured name, an https:// URL (http:// only on loopback), or
nothing when the server is given on the command line: --stdio 'npx -y
some-server' or 'mcpc call TOOL x=1 -- npx -y some-server'. The command is
split like a shell would split it, but never run by one.

Arguments: key=value is a string, unless the tool's inputSchema says the
property is a number, integer or boolean and the text is one; key:=JSON is
always JSON. Words override --args. Arguments are checked against the tool's
inputSchema before sending (exit 2 naming the argument); --no-validate skips
that.

File values: key=@PATH sends the file's text as a string, exactly (trailing
newline included, never turned into a number by the schema; it must be
UTF-8), key:=@PATH parses the file as JSON (invalid JSON is exit 2 naming
the file, line and column), key=@- reads standard input, once per invocation
(a second @-, or @- with --args - or --answers -, is exit 2). Paths are
relative to the working directory, and files are read like --args @FILE: a
FIFO, a device or a file over 64 MiB is exit 2 naming it, before any server
starts. key=@@text sends the literal @text. The same works for 'mcpc prompt'
and --answer. --batch lines are JSON and take no @ values.

MCP Apps: mcpc declares no UI capability and renders no app. Tools meant
only for an app (_meta.ui.visibility without "model") are left out of lists,
completion and call. A tool's UI resource (_meta.ui.resourceUri) is a line
of 'mcpc list SERVER TOOL', and 'mcpc read SERVER ui://...' prints its HTML as
text, escape sequences stripped; nothing is opened.
`

const outputHelp = `mcpc output

- Text on a terminal, JSON when stdout is not one; --json / --text force it.
- JSON mode prints the MCP result object (content, structuredContent,
  isError, ...) as one indented document. --query PATH (gjson syntax, like -q
  content.0.text or -q 'tools.#.name') selects part of it; a malformed path
  is refused (exit 2) before any server is started.
- At most 50 KiB / 2,000 lines inline (--max-bytes, --max-lines, 0 lifts the
  bound). Truncated JSON stays valid and gains an _mcpc key; the full result
  is written to a private file under $XDG_CACHE_HOME/mcpc/overflow/
  (directory 0700, files 0600, 50 MiB in all, oldest removed first) whose
  path is printed. The directory must be a real directory of yours (a
  symlink is refused, a mode open to others is tightened); pruning deletes
  only files mcpc named, never one written in the last 10 minutes; a result
  over the whole cap is not saved. A result that cannot be saved (over the
  cap, a full disk) is still printed bounded, with a note saying why, and
  the exit status stays the tool's.
- At most 4 images/audio items inline, each at most 2 MiB of base64; the
  others are saved to overflow files and referenced (dataFile). In text mode
  every image and sound is saved, and its line gives type, size and the
  file's path.
- In text mode structuredContent is pretty-printed, once (a text block that
  only repeats it as JSON is not shown again).
- Text mode strips terminal escape and control sequences from server text.
  JSON mode escapes DEL, C1 controls and bidi overrides as \uXXXX (the same
  JSON value, but a terminal showing it cannot be reordered or recoloured).
- stdout carries results only; notes, errors and server stderr go to stderr.
- Tables fit the terminal's width (cut with ...); piped, nothing is cut.
- Every call carries a progress token. On a terminal, 'mcpc call' shows one
  live line on stderr (spinner, the server's message, done/total, elapsed)
  that is cleared before the result; NO_COLOR drops the colour and TERM=dumb
  the line. When stderr is not a terminal, --progress prints one line per
  update.

Silent servers and large messages

- A request the server neither answers nor sends anything on (progress, log
  messages, questions) for 5 minutes fails with exit 6, naming the request,
  when --timeout is not given; --idle-timeout DURATION sets this bound (0:
  none) and progress resets it. Time spent waiting for your answer to a
  server's question does not count. A response to an id mcpc never sent is
  traced under --verbose and named in that error.
- One message from a server (a stdio line, an HTTP JSON body, one event of
  an event stream) may be up to 64 MiB: --max-message SIZE (e.g. 256MiB, at
  most 4 GiB), per server "maxMessage". A larger message, or one nested
  deeper than 10,000 levels, ends the call with exit 5 (too_large) and a
  message naming the limit. The bound holds for everything of an event: a
  line, a field, the event being read. Comments and field lines (event:,
  id:) that never end an event cost no more, and are not activity: such a
  stream is exit 6 at the idle bound (at --connect-timeout during start-up).
- A server's own requests to mcpc are bounded in flight: once 64 are
  unanswered (the server is not reading the answers), mcpc reads nothing
  more from it, and after 3 s more fails with exit 5 (protocol).
- Memory: a result over 1 MiB is kept once, as it arrived, below the MCP
  library (which decodes a stub), and bounding streams the full result to
  the overflow file; of a long list only the items a bounded rendering can
  show are parsed up front, the others one at a time as the file is written.
  In text mode a tool's text is measured, cut and saved a piece at a time
  from the result as it arrived. Peak RSS for a 60 MiB tool result is about
  140 MiB over stdio or HTTP, for one million small content items (37 MB)
  about 90 MiB, as JSON or as text: within 3 x size + 20 MiB. Escape and
  control sequences are stripped a piece at a time (about 160 MiB for a 60
  MiB text full of them), and --query reads the result as it arrived,
  parsing only what it selects (about 140 MiB for 60 MiB). (--max-lines 0
  keeps the whole result in memory as a tree, about ten times its size for
  many small items.)
`

const answersHelp = `mcpc answers: when the server asks

A server may ask for input while a request runs (elicitation: a
confirmation, a missing field, a URL to visit). mcpc offers form and URL
elicitation - and nothing else: sampling and roots are refused, with a note
on stderr - and answers each question in this order:

1. --answer KEY=VALUE / --answer KEY:=JSON (repeatable), typed by the
   requested schema as key=value tool arguments are, and --answers '{"k":...}'
   / @FILE / - (a JSON object; --answer wins); fields left out take their
   defaults, as in a form filled in with them;
2. --yes: accept, taking the schema's default for every field left out (a
   required field with neither is exit 2, naming it);
3. when stdin and stderr are a terminal: ask field by field (title,
   description, type, choices and default shown; each answer checked; Enter
   takes the default, Ctrl-D declines, Ctrl-C cancels the request, exit
   130);
4. otherwise decline, and print on stderr what was asked and the --answer
   flags that would answer it. The tool's result then decides the exit code.

Answers are checked against the requested schema before they are sent (exit
2 naming the field).

  mcpc call srv deploy --answer confirmed:=true
  mcpc call srv signup --answer name=Ann --yes      # defaults for the rest

A URL the server asks you to visit is printed on stderr (escape-stripped; a
JSON line with --json), never opened; --yes or a yes at the terminal
accepts. When a 2025 server answers "visit this URL first" (-32042), mcpc
waits with --yes for the server to report the visit done (bounded by
--timeout), then sends the request again.

2026-07-28 servers ask through input_required results: mcpc answers the same
way and sends the request again with the answers and the server's
requestState exactly as received, at most 10 rounds of questions (and 3
"busy, retry" answers) per request.

Server log messages go to stderr as mcpc: server LEVEL (logger): text,
escape-stripped, never to stdout. --log-level LEVEL (default warning; debug
to emergency) is sent to the server (logging/setLevel, or with each request
on 2026-07-28 servers) and applied locally.
`

const tasksHelp = `mcpc tasks

Some tools run as tasks: the server accepts the call at once and works in
the background. A tool whose execution.taskSupport is "required"
(2025-11-25) runs as a task; one that is "optional" does with --task (or
--detach); a 2026-07-28 server (tasks extension
io.modelcontextprotocol/tasks, which mcpc declares) decides call by call.
mcpc polls the task at the server's pollInterval (bounded to 0.2-5 s), shows
its status message on the progress line, answers what it asks
(input_required) as 'mcpc help answers' says, and prints the final result exactly as a direct
call would, with the same exit codes. Ctrl-C cancels the task (tasks/cancel)
and exits 130; --timeout cancels it and exits 6, and so does a poll the
server leaves unanswered for 30 s. A task id with control characters is
refused (exit 5) and the task cancelled.

On an HTTP server a task can outlive the invocation: --detach prints the
task id (the task object with --json) and how to follow it, and exits 0 once
the server has accepted it. mcpc remembers what the server ties the task to
(the 2025-11-25 session, which it then does not end, and a keyed hash of the
credential) in its state directory, and reaches the task from later
invocations. Once every task of a kept 2025-11-25 session is settled (its
result fetched, cancelled, or unknown to the server), mcpc ends the session
(DELETE) and forgets its tasks, except that a task you cancelled is
remembered for a day as cancelled (task get/task result exit 130):

  id=$(mcpc call --text --detach srv simulate-research-query topic=go)
  mcpc task get srv "$id"        # status (--json: the task object as sent)
  mcpc task result srv "$id"     # wait for the end, print the result (Ctrl-C leaves it running)
  mcpc task cancel srv "$id"
  mcpc task list srv             # tasks/list of the remembered sessions (2026: each remembered task)

A stdio server ends with the invocation, and its tasks with it: --detach and
'mcpc task' refuse it (exit 2). A task that fails is exit 1 (task_failed);
one the server cancelled or no longer knows (expired ttl, unknown id) is
exit 7 (task_gone); one the user cancelled is exit 130.
`

const skillsHelp = `mcpc skills

A server may serve Agent Skills (a SKILL.md and the files beside it) under
the skills extension (io.modelcontextprotocol/skills, SEP-2640), which mcpc
declares:

  mcpc skills srv                                   # name, files, size, description (--json: skills/list as sent)
  mcpc skills get srv pdf-processing                # the verified SKILL.md
  mcpc skills get srv pdf-processing --out skills/pdf-processing   # every file, verified, under a new directory

Listing reads no file: the table comes from the listing's entries. get reads
SKILL.md first and checks it against the listing (its size, its SHA-256
digest, its YAML frontmatter field by field) before anything else is read;
with --out, each other listed file follows, checked the same way before the
next is read. A mismatch exits 5 naming the file and what differed, and
nothing after it is read; a file is read no further than its listed size
allows, and frontmatter over 64 KiB or with YAML aliases is refused (exit 5)
before it is parsed. The files are written into a new directory beside DIR,
renamed to DIR (which must be new or empty) only when all are verified;
their paths must stay inside the skill (no absolute path, no .., no symlink
followed), and a skill of more than 512 files or 16 MiB, or one whose paths
collide (the same path twice, or a file where another needs a directory,
letter case aside), is refused from its entry before any read. A name two
skills share is given as the skill's path (team-a/refunds); a SKILL.md URI
the listing leaves out is looked up with skills/get. A skill served
dynamically has only its frontmatter to check; with --out its files are
found with resources/directory/read, which mcpc sends only to a server that
declares directoryRead.
`

const ciHelp = `mcpc in CI

A CI job needs no login and no keyring: give an HTTP server's entry
"bearerTokenEnv": "VAR" (or --bearer-env VAR) and export the variable, or
use client credentials, or, with no stored secret at all, the job's own OIDC
token ("auth": {"type": "workload"}): 'mcpc help auth' has each. Nothing is
written to disk. Every failure has its exit status ('mcpc help
exit-codes'); with --json its code is printed on stderr as one JSON object.
A session started with --shell ends when the step's shell exits ('mcpc help
sessions').

Health checks and search across servers

'mcpc ping SERVER' times one round trip: a ping to a 2025 server, and on a
2026-07-28 server (which has no ping) a server/discover sent to the server
even when its answer is remembered. --json:
{"server":...,"revision":...,"ms":...}.

'mcpc list --check' connects to every configured server (or the named ones),
at most 4 at once (--parallel N), each bounded by its connect timeout, and
prints one row per server:

  NAME    TRANSPORT  STATUS       REVISION    TOOLS  TIME
  dead    stdio      unreachable  -           -      23.8ms
  docs    http       needs login  -           -      4.1ms
  local   stdio      ok           2026-07-28  17     13.1ms
  team    stdio      untrusted    -           -      -

Statuses: ok, needs login, auth failed, unreachable, timeout, untrusted,
disabled (and rejected, unusable). It never starts a login, nor a server
from an untrusted project file or a disabled entry: those are listed, not
started. Exit 0 only when every server checked is ok, else the most severe
failure's status (5, then 6, 4, 7, 2, 3: 'mcpc help exit-codes'). --json has
one object per server, with the failure's message in "error".

'mcpc grep PATTERN [SERVER...]' searches the names, titles and descriptions
of the tools, prompts and resources of those servers (every configured
trusted one without names), case-insensitively (Go regular expressions;
--name: names and resource URIs only), with the same bounds as --check and
the lists a server marked fresh from the cache. One match per line, server
kind  name description, cut to the terminal's width; JSON Lines when piped.
A server that cannot be reached is a note on stderr: exit 0 with a match, 1
without, 5 only when no server could be searched; an invalid pattern is exit
2 before anything connects.

Schema drift

A CI step can fail when a server's tools change under it:

  mcpc snapshot github > github.snapshot.json      # once; keep it in the repository
  mcpc diff github github.snapshot.json            # later: exit 1 on a breaking change
  mcpc diff --strict github github.snapshot.json   # exit 1 on any change
  mcpc diff old.snapshot.json new.snapshot.json    # two snapshots
  mcpc diff --stdio './server --next' server.snapshot.json

The snapshot holds each tool's name, title, description, input and output
schemas, annotations and execution.taskSupport, each prompt and its
arguments, and each resource template, every page listed; keys and lists are
sorted and nothing varies between two listings (no timestamp, cursor, cache
hint or _meta), so an unchanged server gives the same bytes. "mcpcSnapshot":
1 is the format version, which later versions keep reading. The document is
indented by two spaces down to 32 levels and compact below (no real schema
nests that deep; indentation would make a deep one hundreds of times its
size); one that would still pass the 64 MiB 'mcpc diff' reads is written
compact, and one over 64 MiB even so is exit 5.

In 'mcpc diff' the snapshot is the old side and the server the new one; with
two files, the first is the old. An argument is a file when it contains a /
or names an existing file; otherwise it is a server (a configured name or a
URL). A bare name that is both is refused (write ./NAME); one that is
neither is exit 2 naming it. With --stdio or -- the one argument is the
snapshot. A file that is not a snapshot (bad JSON, no or a newer format
version, a FIFO, over 64 MiB) is exit 2 naming it.

Each change is a line (breaking: tool search_issues: argument "q" is now
required), or with --json one {kind, object, path, change, old, new} of a
list:

- breaking: a tool, prompt or template removed; a required argument added,
  or an argument made required; a property removed; a type changed or
  narrowed; an enum value removed (or an enum added); additionalProperties
  closed; an output property removed or made optional; a bound tightened
  (maximum, minLength, ...) or another limit added or changed (pattern,
  format, ...); a tool that now requires a task (execution.taskSupport
  "required"), or no longer allows one.
- compatible: a tool, optional argument, enum value or output property
  added; an argument made optional; a bound loosened or a limit removed;
  titles, descriptions, annotations, default, examples and x- keywords
  changed.

Schemas are compared as JSON Schema (2020-12 and draft-07), not as text:
types as sets (["string","null"] to "string" is a narrowing; integer is part
of number), anyOf/oneOf/allOf folded in, nested properties and array items
by path (arguments.filter.tags[]), local $refs (#/$defs/..., #/definitions/...,
any pointer) followed, a cycle walked once. In an output schema the server
produces the value, so there a type widened or an enum value added is
breaking and a narrowing compatible. A schema whose comparison would take
more than a fixed budget of steps (anyOf branches that multiply, one schema
reached through many $ref paths) or that nests more than 1000 levels is not
compared in detail: a note says so and, when its text differs, it is one
breaking change (not-compared). --timeout, Ctrl-C and SIGTERM stop a
comparison (exit 6, 130). Exit 0 when nothing breaks, 1 when something does
(drift), 1 for any change with --strict.
`

const httpHelp = `mcpc and HTTP servers

Configured headers and bearer tokens are sent only to the configured origin
(scheme, host and port). A redirect within that origin is followed; a
redirect to another origin, or to plain http off loopback, is refused with
exit 5 (redirect) naming both origins, before anything is sent there.
Query-string values in any URL mcpc prints (errors, hints, 'mcpc config')
are shown as REDACTED.

Every secret an invocation sends (client secrets and assertions, workload
and ID tokens, ID-JAGs, access and refresh tokens, DPoP proofs, the
bearerTokenEnv token and ${VAR} values in headers) is replaced by <redacted>
wherever it shows up on stderr: a server that quotes the request back in an
error, a --verbose trace, the --json error object. It is found by value,
also JSON-escaped and percent-encoded; values shorter than 8 bytes are not.
Through a session, the holder (which sends the requests) redacts its own
from the errors, log and progress messages it passes on, and from the
failure of a session start. stdout is the result as the server sent it and
is not rewritten.

HTTP+SSE servers

Some servers still speak the 2024-11-05 HTTP+SSE transport: a GET opens an
event stream whose first event names the URL to POST messages to. mcpc finds
them the way the specification describes: when the first POST to a URL is
answered 400, 404 or 405, it sends a GET with Accept: text/event-stream, and
if the stream starts with an endpoint event it speaks HTTP+SSE from there
(the first call costs two requests more). The finding is remembered with the
server's era, so later calls go straight to the stream; 'mcpc reconnect'
forgets it and finds out again. 'mcpc list' shows the transport as sse,
'mcpc reconnect' as Transport: HTTP+SSE, URL.

--transport sse (or "type": "sse" in the entry, as Claude Code and Cursor
write it) pins HTTP+SSE; --transport http ("type": "http" or
"streamable-http") pins Streamable HTTP, which then never falls back.
Everything above holds on HTTP+SSE too: headers and tokens only to the
configured origin, and an endpoint announced on another origin is refused
with exit 5 (redirect) naming both origins, before anything is posted;
--max-message, the idle bound, Ctrl-C (the server is sent
notifications/cancelled), --verbose traces with secrets redacted, and the
exit codes are the same.

Busy servers

A 429 or 503 with Retry-After on a request that is safe to repeat (lists,
resources/read, server/discover) is retried once, if the wait is under 10 s
and ends before --timeout. tools/call is never retried.
`

const erasHelp = `mcpc protocol eras and cache

- In auto mode the first invocation probes a server with server/discover and
  remembers the verdict (the revision, and a modern server's discover
  result) in $XDG_STATE_HOME/mcpc/eras/, keyed by the stdio command line,
  environment and directory, or by the HTTP origin and path. Later
  invocations start the right handshake at once: a remembered 2026-07-28
  server gets no server/discover at all. A stdio server that ignores the
  probe costs the probe bound (--probe-timeout, per server "probeTimeout",
  default 10s) once; one that exits on it is started a second time on first
  contact only (its stderr is held while the probe decides, so that it shows
  once: the first 1 MiB of it, with a note saying how much more was
  dropped). One that dies at start on every run, before either handshake, is
  remembered as such: later invocations start it once, with initialize, and
  its stderr shows once; when it answers again the verdict is dropped and
  the next invocation probes. A verdict that turns out wrong is dropped and
  the server probed again in the same invocation.
- Results a server marks with ttlMs (tool, prompt, resource and template
  lists, resources/read) are kept in $XDG_CACHE_HOME/mcpc/results/ and
  reused while fresh (private ones only with the same credential). A warm
  'mcpc call' on a 2026-07-28 server that does so is one request. --no-cache
  asks again; list_changed notifications and 'mcpc reconnect' drop them.
- --protocol 2026-07-28 never falls back to initialize; a pinned 2025
  revision never probes.
- --json prints each result as the server sent it. The only changes: list
  pages are joined, app-only tools are left out, bounding may add _mcpc,
  images, audio and blobs over the media limits become dataFile/blobFile
  references, and DEL, C1 and bidi controls are escaped. Content types mcpc
  does not know are kept (and marked in text mode).
- structuredContent is checked against the tool's outputSchema: a warning on
  stderr, or exit 5 under --strict.
- --verbose (-v) traces every request and response, HTTP status and headers
  (values that may hold secrets redacted), cache hits and the era decision.
- TRACEPARENT, TRACESTATE and BAGGAGE from the environment are sent in every
  request's _meta, so a CI trace continues into the server.
`

const serversHelp = `mcpc and the servers it runs

stdio servers run in their own process group; their stderr reaches ours
(--server-stderr show|hide|FILE). On exit mcpc closes the server's stdin,
then sends SIGTERM and finally SIGKILL to the whole group, so no process,
grandchildren included, outlives the invocation. On Linux mcpc is a child
subreaper: a grandchild that daemonizes (setsid, double fork) is re-parented
to mcpc and stopped too. The server gets a parent-death signal, so even when
mcpc is killed outright (SIGKILL) the kernel stops the server; what remains
then are the server's own children, which nothing is left running to stop.

On Windows a stdio server runs in a Job object, so its whole tree dies with
mcpc; files are private to the user through the profile directory's ACLs,
not modes.
`

const oauthHelp = `mcpc oauth: logging in, its tokens and the "auth" entry

'mcpc login SERVER' runs the OAuth authorization-code flow (discovery, PKCE,
resource, issuer checks; client identity from clientId, else a Client ID
Metadata Document, else Dynamic Client Registration). It prints the
authorization link on stderr (with --json as {"authorizationUrl": ...}) and
never opens a browser; the browser comes back to a receiver on 127.0.0.1 (a
fixed port with "redirectPort"), or, with --paste, the address the browser
was sent to can be pasted on stdin. Bounded by --timeout (5 minutes when not
given; exit 6). 'mcpc logout SERVER' deletes the stored login.

A client registered by Dynamic Client Registration is kept in the keyring
per authorization server (its issuer) and reused by later logins to any
server of that authorization server; a server that moves to another
authorization server gets a new registration there. The redirect URI is
http://127.0.0.1:PORT/callback: logging in to the same server again listens
on the registered port when it is free; a login to another server of that
authorization server (or with the port taken) relies on it accepting any
port on a loopback redirect, as RFC 8252 (section 7.3) requires; with one
that does not, set "redirectPort". A kept registration the authorization
server refuses (invalid_client) is forgotten and the login registers anew,
which prints a second link to approve; one through which a login times out
(a server that dropped the client shows an error page and never sends the
browser back) is forgotten too, and so is the one a login used when 'mcpc
logout' deletes that login: the next login registers anew.

Tokens live in the OS keyring only, keyed by a hash of the server's name,
URL and auth settings: the Secret Service on Linux (GNOME Keyring, KWallet and
others, over the D-Bus session bus), the Keychain on macOS, the Credential
Manager on Windows. There is no plaintext fallback: without a keyring (no
DBUS_SESSION_BUS_ADDRESS, a locked keyring that cannot prompt) mcpc exits 4
and points at bearerTokenEnv or client credentials. No build needs cgo for
its keyring. On macOS a login is readable without a prompt only by the mcpc
binary that stored it (other programs, 'security' included, make the
Keychain ask), and it is never synced to iCloud. On Windows, where one
credential holds at most 2,560 bytes, a larger login is compressed and split
over credentials named mcpc:KEY, mcpc:KEY:2/N, ...; any program of the user
can read them, as with an unlocked Secret Service.

Every command uses a stored login. A server configured with "auth": {"type":
"oauth"} and no login fails with exit 4 before connecting (hint: 'mcpc login
SERVER'). An expiring or rejected token is refreshed under a per-server lock
file in $XDG_STATE_HOME/mcpc/locks/ (it holds a PID and a time, never a
secret), so of many concurrent invocations only one refreshes and the others
use what it stored; a wait for another process's refresh ends before
--timeout with exit 6 naming that process. A 403 insufficient_scope exits 4
and makes the next 'mcpc login' ask for the missing scopes too. 'mcpc list'
shows each HTTP server's auth state without contacting it (logged in,
expires in 42m, needs login, CI_TOKEN not set, client credentials, keyring
unavailable, workload (github-actions), workload (CI_OIDC_TOKEN not set),
enterprise via idp.example.com (logged in, expires in 42m)).

The "auth" entry, by type

- auth: {"type": "oauth", "clientId"?, "clientSecretEnv"?, "issuer"?,
  "clientMetadataUrl"?, "scopes"?, "redirectPort"?} for 'mcpc login'. With
  clientSecretEnv, "issuer" is required: the secret goes only to the
  authorization server the client was registered with.
- auth: {"type": "client_credentials", "clientId", "issuer",
  "clientSecretEnv" | "clientAssertionKeyFile" + "clientAssertionAlg",
  "scopes"?} for CI: no login and no keyring. The secret comes from the
  named variable at connect time, or a private-key JWT assertion (RFC 7523;
  ES256/384/512, RS256/384/512, PS256/384/512 or EdDSA; a relative key path
  is relative to the config file) is signed with the key. The authorization
  server's metadata must name exactly the configured issuer. Tokens stay in
  memory.
- auth: {"type": "workload", "issuer", "assertionEnv" | "assertionFile" |
  "assertionFrom": "github-actions", "clientId"?, "audience"?, "scopes"?}
  for CI with the platform's OIDC token; exactly
  one source; audience only with github-actions.
- auth: {"type": "enterprise", "issuer", "clientId", "clientSecretEnv" |
  "clientAssertionKeyFile" + "clientAssertionAlg", "idp": {"issuer",
  "clientId", "clientSecretEnv"?, "tokenEndpoint"?, "scopes"?},
  "idTokenEnv"? | "idTokenFile"?, "scopes"?} (Enterprise-managed
  authorization). A key another type uses (say assertionEnv on oauth) is an
  error.
- dpop: true or false forces DPoP-bound tokens on or off for an HTTP server
  (default: on when its authorization server offers it).

DPoP-bound tokens

When the authorization server's metadata lists
dpop_signing_alg_values_supported (ES256), mcpc binds its tokens to a key
(RFC 9449, SEP-1932): a login keeps an ES256 key in its keyring record
beside the tokens; client credentials, workload identity and enterprise
tokens get a key per invocation, in memory. Every token request (refreshes
included) and every MCP request carries a fresh DPoP proof (new jti, the
method, the URL without query, the token's hash), and requests say
Authorization: DPoP .... A token copied out of a log or a proxy is then
useless without the key. A server's nonce demand (use_dpop_nonce) is
answered by one retry; a second demand for the same request is exit 4, as is
a Bearer token where DPoP was required. "dpop": true in a server entry asks
for DPoP whatever the metadata says, "dpop": false never uses it. 'mcpc
list' shows DPoP-bound after a login's state; proofs, tokens and the key
never appear in --verbose or any file but the keyring.
`
