package format

import (
	"bytes"
	"testing"
)

func TestEscapeHostileInJSON(t *testing.T) {
	for in, want := range map[string]string{
		`"plain"`:                     `"plain"`,
		"\"a\x7fb\"":                  `"a\u007fb"`,
		"\"c1:\u009b[2J\"":            `"c1:\u009b[2J"`,
		"\"rtl:\u202eevil\u202c\"":    `"rtl:\u202eevil\u202c"`,
		"\"iso:\u2066x\u2069\u200f\"": `"iso:\u2066x\u2069\u200f"`,
		"\"alm:\u061c é ü\"":          "\"alm:\\u061c é ü\"",
	} {
		if got := string(escapeHostile([]byte(in))); got != want {
			t.Errorf("escapeHostile(%q) = %q, want %q", in, got, want)
		}
	}
	var b, e bytes.Buffer
	if err := Write(&b, &e, []byte("{\"k\\u202e\":\"v\u202e\",\"n\":1}"), Options{Mode: ModeJSON, MaxBytes: 1 << 20, MaxLines: 1000}); err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != "{\n  \"k\\u202e\": \"v\\u202e\",\n  \"n\": 1\n}\n" {
		t.Errorf("Write = %q", got)
	}
}
