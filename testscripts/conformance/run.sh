#!/bin/sh
# Run MCP conformance client scenarios against mcpc, by hand.
#
#   testscripts/conformance/run.sh                    # the default set below
#   testscripts/conformance/run.sh tools_call tools_call@2026-07-28
#
# NAME@VERSION runs a scenario at that wire version (--spec-version); plain NAME
# uses the suite's default (2025-11-25, or 2026-07-28 for scenarios that only
# exist there). mcpc is built into .bin/mcpc unless MCPC_BIN names a binary.
# Results: results/<scenario>-<timestamp>/checks.json (+ stdout.txt, stderr.txt),
# or under $MCPC_CONFORMANCE_OUT. Exit status: non-zero if any scenario failed.
set -eu
cd "$(dirname "$0")/../.."
root=$(pwd -P)

bash .ci/peers >/dev/null 2>&1 || bash .ci/peers
# shellcheck source=/dev/null
. "$root/.cache/peers.env"

if [ -z "${MCPC_BIN:-}" ]; then
	command -v go >/dev/null || PATH=/usr/local/go/bin:$PATH
	mkdir -p .bin
	go build -o .bin/mcpc .
	MCPC_BIN=$root/.bin/mcpc
fi
bindir=$(cd "$(dirname "$MCPC_BIN")" && pwd -P)
[ "$(basename "$MCPC_BIN")" = mcpc ] || { echo "run.sh: MCPC_BIN must be named mcpc" >&2; exit 2; }
PATH=$bindir:$(dirname "$MCPC_NODE22"):$PATH
export PATH MCPC_NODE22

out=${MCPC_CONFORMANCE_OUT:-$root/results}
if [ $# -eq 0 ]; then
	set -- initialize tools_call tools_call@2026-07-28 request-metadata \
		http-standard-headers http-custom-headers http-invalid-tool-headers \
		json-schema-ref-no-deref json-schema-2020-12-preservation sse-retry \
		elicitation-sep1034-client-defaults sep-2322-client-request-state \
		sep-2640-client-no-prefetch sep-2640-client-verify-digest \
		sep-2640-client-verify-size sep-2640-client-verify-frontmatter
fi

failed=
for spec in "$@"; do
	name=${spec%@*}
	set -- --scenario "$name" -o "$out"
	[ "$name" = "$spec" ] || set -- "$@" --spec-version "${spec#*@}"
	echo "=== $spec"
	if "$MCPC_NODE22" "$MCPC_CONFORMANCE" client \
		--command "sh $root/testscripts/conformance/harness.sh" "$@"; then
		echo "=== $spec: PASS"
	else
		echo "=== $spec: FAIL"
		failed="$failed $spec"
	fi
done
echo "results in $out"
[ -z "$failed" ] || { echo "failed:$failed"; exit 1; }
