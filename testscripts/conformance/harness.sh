#!/bin/sh
# Client under test for the MCP conformance suite (@modelcontextprotocol/conformance).
#
#   conformance client --command "sh testscripts/conformance/harness.sh" --scenario NAME
#
# The suite starts a scenario server and runs this script with the server URL as
# the LAST argument, the scenario name in MCP_CONFORMANCE_SCENARIO and optional
# scenario data (JSON) in MCP_CONFORMANCE_CONTEXT. The script drives `mcpc`
# (found on PATH, or $MCPC) exactly as a user's script would: plain subcommands,
# no test-only flags. It exits non-zero when an mcpc invocation fails or prints
# something other than what the scenario's server answers; the suite itself
# judges the wire traffic (checks.json).
#
# Scenarios that need JSON picked apart use Node (`$MCPC_NODE22`, else `node`),
# which the suite itself runs on.
set -eu

url=
for url in "$@"; do :; done
[ -n "$url" ] || { echo "harness: error: no server URL argument" >&2; exit 2; }
scenario=${MCP_CONFORMANCE_SCENARIO:-}
context=${MCP_CONFORMANCE_CONTEXT:-}
MCPC=${MCPC:-mcpc}
NODE=${MCPC_NODE22:-node}
failed=0

say() { printf 'harness: %s\n' "$*" >&2; }
fail() { say "error: $*"; exit 1; }

# run ARGS...: run mcpc (stdin closed), echo the command line to stderr, keep
# its exit code.
run() {
	say "\$ mcpc $*"
	"$MCPC" "$@" </dev/null
}

# also ARGS...: like run, but a failure is remembered and the script goes on,
# so later steps of a scenario still run and show up in checks.json.
also() {
	rc=0
	run "$@" || rc=$?
	if [ "$rc" -ne 0 ]; then
		say "mcpc exited $rc"
		failed=1
	fi
	return 0
}

# js SCRIPT: run a Node snippet with the JSON text on stdin parsed into `j`;
# the snippet prints its answer with out(value).
js() {
	"$NODE" -e '
		let s = "";
		process.stdin.setEncoding("utf8");
		process.stdin.on("data", (d) => (s += d));
		process.stdin.on("end", () => {
			const j = s.trim() === "" ? null : JSON.parse(s);
			const out = (x) => process.stdout.write((typeof x === "string" ? x : JSON.stringify(x)) + "\n");
			'"$1"'
		});'
}

# expect TEXT NEEDLE WHAT: fail unless TEXT contains NEEDLE.
expect() {
	case $1 in
	*"$2"*) ;;
	*) fail "$3: expected to find $2 in: $1" ;;
	esac
}

# write_config AUTH: write $dir/config.json with one server, "server", at
# $url, whose "auth" is AUTH plus what the scenario's context provides:
# client_id, client_secret (into $MCPC_CONFORMANCE_SECRET, named by
# clientSecretEnv), issuer, private_key_pem (into a key file), valid_jwt
# (the workload token, into $MCPC_CONFORMANCE_ASSERTION, named by
# assertionEnv), idp_issuer, idp_client_id and idp_token_endpoint (the
# "idp" block) and idp_id_token (into $MCPC_CONFORMANCE_ID_TOKEN, named by
# idTokenEnv). The wif context's wrong_audience_jwt and expired_jwt are
# left out: the suite counts any request after a refused one against the
# client (mcpc's own scripts test those refusals).
write_config() {
	dir=$(mktemp -d)
	printf '%s' "$context" | "$NODE" -e '
		const fs = require("fs");
		const [dir, url, auth] = process.argv.slice(1);
		let s = "";
		process.stdin.on("data", (d) => (s += d));
		process.stdin.on("end", () => {
			const j = s.trim() === "" ? {} : JSON.parse(s);
			const a = JSON.parse(auth);
			if (j.client_id) a.clientId = j.client_id;
			if (j.issuer) a.issuer = j.issuer;
			if (j.client_secret) {
				a.clientSecretEnv = "MCPC_CONFORMANCE_SECRET";
				fs.writeFileSync(dir + "/secret", j.client_secret, { mode: 0o600 });
			}
			if (j.private_key_pem) {
				fs.writeFileSync(dir + "/key.pem", j.private_key_pem, { mode: 0o600 });
				a.clientAssertionKeyFile = "key.pem";
				a.clientAssertionAlg = j.signing_algorithm || "ES256";
			}
			if (j.valid_jwt) {
				a.assertionEnv = "MCPC_CONFORMANCE_ASSERTION";
				fs.writeFileSync(dir + "/assertion", j.valid_jwt, { mode: 0o600 });
			}
			if (j.idp_issuer) {
				a.idp = { issuer: j.idp_issuer, clientId: j.idp_client_id };
				if (j.idp_token_endpoint) a.idp.tokenEndpoint = j.idp_token_endpoint;
			}
			if (j.idp_id_token) {
				a.idTokenEnv = "MCPC_CONFORMANCE_ID_TOKEN";
				fs.writeFileSync(dir + "/id_token", j.idp_id_token, { mode: 0o600 });
			}
			fs.writeFileSync(dir + "/config.json", JSON.stringify({ mcpServers: { server: { url, auth: a } } }));
		});' "$dir" "$url" "$1" || fail "cannot write the config file"
	if [ -f "$dir/secret" ]; then
		MCPC_CONFORMANCE_SECRET=$(cat "$dir/secret")
		export MCPC_CONFORMANCE_SECRET
	fi
	if [ -f "$dir/assertion" ]; then
		MCPC_CONFORMANCE_ASSERTION=$(cat "$dir/assertion")
		export MCPC_CONFORMANCE_ASSERTION
	fi
	if [ -f "$dir/id_token" ]; then
		MCPC_CONFORMANCE_ID_TOKEN=$(cat "$dir/id_token")
		export MCPC_CONFORMANCE_ID_TOKEN
	fi
}

# resource_issuer: the first authorization server the resource's metadata
# (RFC 9728) lists, as a user reads it off the server's documentation.
resource_issuer() {
	"$NODE" -e '
		const u = new URL(process.argv[1]);
		fetch(u.origin + "/.well-known/oauth-protected-resource" + u.pathname)
			.then((r) => r.json()).then((m) => console.log(m.authorization_servers[0]))
			.catch((e) => { console.error(String(e)); process.exit(1); });' "$url" ||
		fail "cannot read the protected resource metadata"
}

# login [--config FILE] SERVER: run `mcpc login --json` in the background, wait for the
# authorization link on its stderr, open it like a browser (following the
# redirects, which end at mcpc's loopback receiver), and return mcpc's exit
# status.
login() {
	say "\$ mcpc login --json $*"
	lerr=$(mktemp)
	"$MCPC" login --json --timeout 20s "$@" </dev/null 2>"$lerr" >&2 &
	lpid=$!
	link=
	i=0
	while [ -z "$link" ] && [ "$i" -lt 200 ] && kill -0 "$lpid" 2>/dev/null; do
		link=$(sed -n 's/^{"authorizationUrl":"\(.*\)"}$/\1/p' "$lerr")
		[ -n "$link" ] || sleep 0.1
		i=$((i + 1))
	done
	if [ -n "$link" ]; then
		say "opening $link"
		"$NODE" -e 'fetch(process.argv[1], { redirect: "follow" })
			.then((r) => r.text()).then((t) => console.error("harness: browser: " + t.trim()))
			.catch((e) => console.error("harness: browser: " + e));' "$link" || true
	fi
	lrc=0
	wait "$lpid" || lrc=$?
	cat "$lerr" >&2
	rm -f "$lerr"
	[ "$lrc" -eq 0 ] || say "mcpc login exited $lrc"
	return "$lrc"
}

# list_tools: `mcpc list --json URL`, output kept in $tools.
list_tools() {
	tools=$(run list --json "$url") || fail "mcpc list exited $?"
	printf '%s\n' "$tools" >&2
	expect "$tools" '"tools"' "mcpc list --json"
}

say "scenario '${scenario:-?}' against $url (suite wire version ${MCP_CONFORMANCE_PROTOCOL_VERSION:-?})"

case $scenario in
initialize | request-metadata | json-schema-ref-no-deref)
	# initialize: the handshake (protocolVersion, clientInfo) is what is checked.
	# request-metadata: per-request _meta + MCP-Protocol-Version header, and a
	#   retry after the first request is refused with -32022.
	# json-schema-ref-no-deref: list, but never fetch a network $ref.
	list_tools
	;;

tools_call)
	# The server offers add_numbers {a: number, b: number}; the check passes
	# when a tools/call for it arrives with numeric a and b.
	list_tools
	expect "$tools" '"add_numbers"' "tools/list"
	out=$(run call --json "$url" add_numbers a:=2 b:=3) || fail "mcpc call exited $?"
	printf '%s\n' "$out" >&2
	expect "$out" 'The sum of 2 and 3 is 5' "tools/call add_numbers"
	;;

http-standard-headers)
	# Mcp-Method on every POST, Mcp-Name on tools/call, resources/read, prompts/get.
	list_tools
	also call --json "$url" test_headers
	also call --json "$url" my-hyphenated-tool
	also read --json "$url" 'file:///path/to/file%20name.txt'
	also prompt --json "$url" test_prompt
	;;

http-custom-headers)
	# The context lists the tool calls to make; x-mcp-header parameters must be
	# mirrored as Mcp-Param-* headers (a tools/list comes first so the client
	# knows the annotations).
	list_tools
	calls=$(printf '%s' "$context" | js 'for (const c of j.toolCalls || []) out(c.name + "\t" + JSON.stringify(c.arguments || {}));')
	[ -n "$calls" ] || fail "no toolCalls in MCP_CONFORMANCE_CONTEXT"
	tab=$(printf '\t')
	# The calls deliberately include values the schema forbids (null for a
	# boolean) to test header encoding, so let the server judge them.
	while IFS="$tab" read -r name args; do
		also call --json --no-validate --args "$args" "$url" "$name"
	done <<EOF
$calls
EOF
	;;

http-invalid-tool-headers)
	# Tools with invalid x-mcp-header annotations must be dropped from the list;
	# every tool mcpc does list (only valid_tool) is then called with
	# arguments made up from its input schema.
	list_tools
	calls=$(printf '%s' "$tools" | js '
		const sample = (p) => {
			const t = Array.isArray(p && p.type) ? p.type[0] : p && p.type;
			if (p && "const" in p) return p.const;
			if (p && Array.isArray(p.enum)) return p.enum[0];
			return { string: "x", number: 1, integer: 1, boolean: true, array: [], object: {} }[t] ?? "x";
		};
		for (const t of j.tools || []) {
			const s = t.inputSchema || {}, a = {};
			for (const k of s.required || []) a[k] = sample((s.properties || {})[k]);
			out(t.name + "\t" + JSON.stringify(a));
		}')
	tab=$(printf '\t')
	while IFS="$tab" read -r name args; do
		[ -n "$name" ] || continue
		also call --json --args "$args" "$url" "$name"
	done <<EOF
$calls
EOF
	;;

json-schema-2020-12-preservation)
	# Send the focal tool's inputSchema back, verbatim, as the `schema`
	# argument of json_schema_echo.
	list_tools
	args=$(printf '%s' "$tools" | js '
		const t = (j.tools || []).find((t) => t.name === "json_schema_2020_12_tool");
		if (!t) { console.error("json_schema_2020_12_tool not listed"); process.exit(1); }
		out({ schema: t.inputSchema });') || fail "focal tool not listed"
	also call --json --args "$args" "$url" json_schema_echo
	;;

sep-2322-client-request-state)
	# Multi-round-trip results (input_required + requestState): the echo_state
	# and no_state tools ask to confirm, answered as a script would.
	list_tools
	also call --json --answer confirmed:=true "$url" test_mrtr_echo_state
	also call --json --answer confirmed:=true "$url" test_mrtr_no_state
	also call --json "$url" test_mrtr_unrelated
	also call --json "$url" test_mrtr_no_result_type
	;;

elicitation-sep1034-client-defaults)
	# The tool asks for five fields that all have defaults: --yes takes them.
	list_tools
	out=$(run call --json --yes "$url" test_client_elicitation_defaults) || fail "mcpc call exited $?"
	printf '%s\n' "$out" >&2
	expect "$out" 'Elicitation completed' "tools/call test_client_elicitation_defaults"
	;;

sse-retry)
	# 2025-11-25 only: the tools/call SSE stream is closed early; the client
	# must reconnect (GET + Last-Event-ID) after the `retry` delay.
	list_tools
	run call --json "$url" test_reconnection || fail "mcpc call exited $?"
	;;

sep-2640-client-no-prefetch)
	# Skills (SEP-2640): listing reads no file, not even SKILL.md.
	out=$(run skills --json "$url") || fail "mcpc skills exited $?"
	printf '%s\n' "$out" >&2
	expect "$out" '"skill://pdf-processing/SKILL.md"' "skills/list"
	;;

sep-2640-client-verify-*)
	# The server's SKILL.md fails verification (its digest, its size or its
	# frontmatter against the listing): mcpc must read it, refuse it with
	# exit 5, write nothing and never read the skill's other file, which
	# --out would otherwise fetch next.
	dir=$(mktemp -d)
	rc=0
	run skills get --json "$url" pdf-processing --out "$dir/skill" >&2 || rc=$?
	written=no
	[ ! -e "$dir/skill" ] || written=yes
	rm -rf "$dir"
	[ "$written" = no ] || fail "mcpc wrote a skill that failed verification"
	[ "$rc" -eq 5 ] || fail "mcpc skills get exited $rc, want 5 (verification failure)"
	;;

auth/client-credentials-* | auth/wif-jwt-bearer | auth/enterprise-managed-authorization)
	# The grants made at connect time, with no login and no keyring: a
	# config file names the client (from the context) and the issuer (the
	# authorization server the resource's metadata lists).
	# - io.modelcontextprotocol/oauth-client-credentials: the client's
	#   secret or private-key JWT.
	# - Workload identity (io.modelcontextprotocol/auth/wif): the CI
	#   platform's token, here the context's valid_jwt, in a variable the
	#   config names; one jwt-bearer grant.
	# - Enterprise-managed authorization: the IdP's ID token exchanged at
	#   the IdP for an ID-JAG, and that at the MCP authorization server
	#   (client_secret_basic).
	# `mcpc list` shows the state without contacting anything, then the
	# call connects.
	issuer=$(resource_issuer) || exit 1
	case $scenario in
	auth/client-credentials-*)
		type=client_credentials
		want_state='"auth": "client credentials"'
		;;
	auth/wif-jwt-bearer)
		type=workload
		want_state='"auth": "workload (MCPC_CONFORMANCE_ASSERTION)"'
		;;
	*)
		type=enterprise
		want_state='"auth": "enterprise via localhost:'
		;;
	esac
	write_config "{\"type\": \"$type\", \"issuer\": \"$issuer\"}"
	state=$(run list --json --config "$dir/config.json") || fail "mcpc list exited $?"
	printf '%s\n' "$state" >&2
	expect "$state" "$want_state" "mcpc list --json"
	rc=0
	out=$(run call --json --config "$dir/config.json" server test-tool) || rc=$?
	rm -rf "$dir"
	[ "$rc" -eq 0 ] || fail "mcpc call exited $rc"
	printf '%s\n' "$out" >&2
	expect "$out" '"test"' "tools/call test-tool"
	;;

auth/*)
	# The authorization-code flow as a user runs it: `mcpc login` prints
	# the link, the "user" (this script) opens it (the suite's server
	# approves at once and redirects to mcpc's loopback receiver), then the
	# tool is called with the stored token. A 403 insufficient_scope
	# (step-up) exits 4; the user logs in again, once, and retries.
	# A pre-registered client or a Client ID Metadata Document is named in
	# a config file, as a user would; otherwise the URL alone will do
	# (DPoP too: mcpc binds the tokens when the metadata offers it).
	server=$url
	case $scenario in
	auth/pre-registration)
		write_config '{"type": "oauth"}'
		server="--config $dir/config.json server"
		;;
	auth/basic-cimd)
		write_config '{"type": "oauth", "clientMetadataUrl": "https://conformance-test.local/client-metadata.json"}'
		server="--config $dir/config.json server"
		;;
	esac
	# shellcheck disable=SC2086 # $server is one or three words
	login $server || exit $?
	rc=0
	# shellcheck disable=SC2086
	out=$(run call --json $server test-tool) || rc=$?
	if [ "$rc" -eq 4 ]; then
		say "mcpc call exited 4: logging in again, as the hint says"
		# shellcheck disable=SC2086
		login $server || exit $?
		rc=0
		# shellcheck disable=SC2086
		out=$(run call --json $server test-tool) || rc=$?
	fi
	# shellcheck disable=SC2086
	run logout $server >/dev/null || true
	[ -z "${dir:-}" ] || rm -rf "$dir"
	[ "$rc" -eq 0 ] || fail "mcpc call exited $rc"
	printf '%s\n' "$out" >&2
	expect "$out" '"test"' "tools/call test-tool"
	;;

'')
	fail "MCP_CONFORMANCE_SCENARIO is not set"
	;;

*)
	fail "scenario '$scenario' is not known to this harness"
	;;
esac

exit "$failed"
