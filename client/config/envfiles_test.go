package config

import (
	"path/filepath"
	"slices"
	"testing"
)

func TestEnvFiles(t *testing.T) {
	sep := string(filepath.ListSeparator)
	for v, want := range map[string][]string{
		"":                         nil,
		"a.json":                   {"a.json"},
		"a.json" + sep + sep + "b": {"a.json", "b"},
	} {
		if got := EnvFiles(func(string) string { return v }); !slices.Equal(got, want) {
			t.Errorf("EnvFiles(%q) = %q, want %q", v, got, want)
		}
	}
}
