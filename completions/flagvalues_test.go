package completions

import (
	"reflect"
	"testing"
)

func TestFlagValues(t *testing.T) {
	for flag, want := range map[string][]Candidate{
		"config":        Files,
		"server-stderr": {{Value: "show", Description: "pass it to stderr"}, {Value: "hide", Description: "drop it"}},
		"protocol":      {{Value: "auto"}, {Value: "2025-06-18"}},
		"timeout":       nil,
	} {
		if got := FlagValues(flag, []string{"auto", "2025-06-18"}); !reflect.DeepEqual(got, want) {
			t.Errorf("FlagValues(%s) = %v, want %v", flag, got, want)
		}
	}
}
