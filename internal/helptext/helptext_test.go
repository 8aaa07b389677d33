package helptext

import (
	"io/fs"
	"slices"
	"strings"
	"testing"
)

var values = Values{MaxMessage: "64MiB", KeepAlive: "15m", ProbeTimeout: "10s", SessionIdle: "15m", RecordMax: "256MiB"}

// Every topic has its text, and every text file is a topic's: a file left
// out of Topics would be carried by the binary and printed by nothing.
// Each text starts with its title line, ends with one newline, and has
// all its computed parts filled in.
func TestTopics(t *testing.T) {
	paths, err := fs.Glob(files, "topics/*.txt")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range paths {
		names = append(names, strings.TrimSuffix(strings.TrimPrefix(p, "topics/"), ".txt"))
	}
	if got, want := slices.Sorted(slices.Values(Names())), names; !slices.Equal(got, want) {
		t.Errorf("topics %v; text files %v", got, want)
	}
	for _, topic := range Topics {
		text := topic.Text(values)
		if !strings.HasPrefix(text, "mcpc ") || !strings.HasSuffix(text, "\n") || strings.HasSuffix(text, "\n\n") {
			t.Errorf("%s: starts %q, ends %q", topic.Name, text[:min(len(text), 20)], text[max(0, len(text)-20):])
		}
		if strings.Contains(text, "{{") || strings.Contains(text, "<no value>") {
			t.Errorf("%s: a part left unfilled:\n%s", topic.Name, text)
		}
	}
	defer func() {
		if r := recover(); r != "helptext: Values.SessionIdle not given" {
			t.Errorf("a value not given: %v", r)
		}
	}()
	if _, ok := Find("nope"); ok {
		t.Error("Find found a topic that is not one")
	}
	partial := values
	partial.SessionIdle = ""
	Topics[0].Text(partial)
	t.Error("a topic printed with a value not given")
}

// The values given are the ones printed, where the text states them.
func TestValuesFilledIn(t *testing.T) {
	v := Values{MaxMessage: "7MiB", KeepAlive: "3m", ProbeTimeout: "4s", SessionIdle: "9h", RecordMax: "256MiB"}
	for name, want := range map[string][]string{
		"config":   {`bytes or "128MiB"; default 7MiB); an HTTP`, `stdio or HTTP (true: 3m; a duration like "10m"`},
		"eras":     {`per server "probeTimeout",` + "\n  default 4s) once;"},
		"sessions": {"without a request (default 9h, at"},
	} {
		topic, _ := Find(name)
		for _, s := range want {
			if !strings.Contains(topic.Text(v), s) {
				t.Errorf("help %s lacks %q", name, s)
			}
		}
	}
}

// The exit statuses come from the error model: every code is listed with
// its status, and every status once.
func TestAgentsGuideExitCodes(t *testing.T) {
	got := codesByStatus()
	want := "      0  success\n" +
		"      1  tool_error, task_failed, drift, unmatched\n" +
		"      2  usage\n" +
		"      3  config, untrusted\n" +
		"      4  auth_required, auth_failed, auth_denied\n" +
		"      5  connection, server_exited, protocol, too_large, http_status, redirect, rate_limited, internal\n" +
		"      6  timeout, connect_timeout\n" +
		"      7  rejected, task_gone\n" +
		"    130  interrupted"
	if got != want {
		t.Errorf("exit codes:\n%s\nwant:\n%s", got, want)
	}
	topic, _ := Find("agents")
	if !strings.Contains(topic.Text(values), "names them):\n\n"+want+"\n\nExit 1 means") {
		t.Error("mcpc help agents does not list the exit codes between its paragraphs")
	}
}

// The skill is the agents guide behind its frontmatter.
func TestSkill(t *testing.T) {
	topic, _ := Find("agents")
	want := "---\nname: mcpc\ndescription: \"Find and call the tools" // the description quoted
	if s := Skill(values); !strings.HasPrefix(s, want) || !strings.HasSuffix(s, "\"\n---\n\n"+topic.Text(values)) {
		t.Errorf("Skill:\n%s", s)
	}
}

func TestWrapWords(t *testing.T) {
	got := wrapWords("aa bb cc dddddddddd e", 5)
	if want := []string{"aa bb", "cc", "dddddddddd", "e"}; !slices.Equal(got, want) {
		t.Errorf("wrapWords = %q; want %q", got, want)
	}
}
