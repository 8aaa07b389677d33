package helptext

import (
	"reflect"
	"strings"
	"testing"

	"github.com/mcpc-dev/mcpc/internal/fail"
)

func TestExamples(t *testing.T) {
	meta := Examples("say hello", "mcpc call s hello", "odd one out")
	want := []Example{{What: "say hello", Line: "mcpc call s hello"}}
	if got := ExamplesOf(meta); !reflect.DeepEqual(got, want) {
		t.Errorf("ExamplesOf = %#v, want %#v", got, want)
	}
	if got := ExamplesOf(nil); got != nil {
		t.Errorf("ExamplesOf(nil) = %#v", got)
	}
}

func TestBody(t *testing.T) {
	v := Values{MaxMessage: "64MiB", KeepAlive: "15m", ProbeTimeout: "5s", SessionIdle: "30m", RecordMax: "256MiB"}
	for _, tp := range Topics {
		text, body := tp.Text(v), tp.Body(v)
		if !strings.HasSuffix(text, body) || strings.HasPrefix(body, "\n") || len(body) >= len(text) {
			t.Errorf("%s: Body is not the text past its title line: %.60q", tp.Name, body)
		}
	}
}

func TestSkillOf(t *testing.T) {
	v := Values{MaxMessage: "64MiB", KeepAlive: "15m", ProbeTimeout: "5s", SessionIdle: "30m", RecordMax: "256MiB"}
	if s, err := SkillOf("agents", v); err != nil || !strings.HasPrefix(s, "---\nname: mcpc\n") {
		t.Errorf("SkillOf(agents) = %.40q, %v", s, err)
	}
	for topic, want := range map[string]string{
		"":       "--skill is only for the agents topic, not for 'mcpc help' alone",
		"config": `--skill is only for the agents topic, not for "config"`,
	} {
		_, err := SkillOf(topic, v)
		if e := fail.As(err); e == nil || e.Code != fail.Usage || e.Msg != want {
			t.Errorf("SkillOf(%q) = %v, want usage error %q", topic, err, want)
		}
	}
}
