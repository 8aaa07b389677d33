package client

import (
	"strings"
	"testing"

	"github.com/mcpc-dev/mcpc/client/config"
)

// A server's classification is shown on one line, escapes stripped and
// each string bounded, whatever it sent.
func TestToolFailureHostile(t *testing.T) {
	huge := strings.Repeat("é", 100_000)
	raw := `{"isError":true,"_meta":{"io.modelcontextprotocol/toolFailure":{"class":"reliability\u001b[2J\nx","code":"` + huge + `","retryable":true,"correlationId":{"nested":[[[1]]]},"retryNotBefore":1e308}}}`
	f := ToolFailureOf([]byte(raw))
	if f == nil {
		t.Fatal("no failure read")
	}
	if strings.ContainsAny(f.Class, "\x1b\n") || f.Retryable {
		t.Errorf("class %q, retryable %v: want it one line, stripped, and (not class reliability) not retryable", f.Class, f.Retryable)
	}
	if len(f.Code) > failureTextMax+len("…") || !strings.HasSuffix(f.Code, "…") {
		t.Errorf("code of %d bytes, want at most %d and marked cut", len(f.Code), failureTextMax)
	}
	if f.CorrelationID != "" || !f.NotBefore.IsZero() {
		t.Errorf("correlationId %q, retryNotBefore %v: want a non-string and an absurd time ignored", f.CorrelationID, f.NotBefore)
	}
	for _, raw := range []string{`{"isError":false,"_meta":{"io.modelcontextprotocol/toolFailure":{"class":"reliability"}}}`,
		`{"isError":true,"_meta":{"io.modelcontextprotocol/toolFailure":{"class":7}}}`, `{"isError":true}`, `not json`} {
		if f := ToolFailureOf([]byte(raw)); f != nil {
			t.Errorf("%s: read %+v, want none", raw, f)
		}
	}
}

// An envelope names at most a few authorization_details types, each
// bounded, and none when the remediation forbids hints.
func TestDenialHostile(t *testing.T) {
	var details []string
	for range 1000 {
		details = append(details, `{"type":"t`+strings.Repeat("x", 300)+`"}`, `{"type":"a"}`)
	}
	hints := `[{"type":"authorization_remediation","authorization_details":[` + strings.Join(details, ",") + `]}]`
	raw := `{"isError":true,"_meta":{"io.modelcontextprotocol/authorization":{"reason":"insufficient_authorization","remediation":"available","remediationHints":` + hints + `}}}`
	d := DenialOf([]byte(raw))
	if d == nil || len(d.DetailTypes) != 2 || len(d.DetailTypes[0]) > failureTextMax+len("…") {
		t.Fatalf("read %+v, want two distinct types, each bounded", d)
	}
	raw = strings.Replace(raw, `"available"`, `"unavailable"`, 1)
	d = DenialOf([]byte(raw))
	if d == nil || d.DetailTypes != nil {
		t.Fatalf("read %+v, want the denial without its (forbidden) hints", d)
	}
	e := &config.Entry{Name: "pay", Server: &config.Server{URL: "https://example.com/mcp"}}
	if f := d.Failure(e, `server "pay"`, "x"); f.Hint != "no credential or approval can allow it: do not retry the call unchanged" {
		t.Errorf("hint %q", f.Hint)
	}
}
