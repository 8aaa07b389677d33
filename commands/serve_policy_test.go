package commands

import (
	"strings"
	"testing"
)

// mcpc help serve says what the policy flags do, how a pattern matches,
// the safe way of --read-only, and the call log's format.
func TestServeTopicSaysPolicy(t *testing.T) {
	text := strings.Join(strings.Fields(topicText(t, "serve")), " ")
	for _, s := range []string{
		"Policy. --deny GLOB, --allow GLOB (each repeatable) and --read-only lend fewer tools still, after the entry's filter",
		"A refused tool is left out of tools/list, and a call of it is answered by serve with an error that says why",
		"matches SERVER__TOOL and, with one server lent, the name the host sees, the tool's own",
		"a server's tools are seen as SERVER__TOOL only, and a pattern matches that alone",
		"is refused, never sent on a guess",
		"--log FILE appends one JSON line per request a host sends",
		"serve processes sharing FILE never mix their lines",
		`{"time":"2026-12-02T06:21:14.48Z","downstream":"stdio","upstream":"github","method":"tools/call","name":"search","durationMs":12.5,"outcome":"ok","requestBytes":80,"responseBytes":2048}`,
		`--log-arguments adds each tool call's "arguments", redacted`,
	} {
		if !strings.Contains(text, s) {
			t.Errorf("mcpc help serve does not say %q", s)
		}
	}
}
