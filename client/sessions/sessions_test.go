package sessions

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpc-dev/mcpc/client/holdwire"
	"github.com/mcpc-dev/mcpc/internal/fail"
	redaction "github.com/mcpc-dev/mcpc/internal/redact"
)

// TestHolderReportRedacted: a holder's failure reaches its starter with
// the holder's secrets redacted, since the starter, which printed it on
// stderr, never learnt them (it loaded no login, sent no header).
func TestHolderReportRedacted(t *testing.T) {
	const secret = "hdr-secret-value-42"
	secrets := redaction.NewSet()
	secrets.Add(secret)
	var out bytes.Buffer
	ReportToStarter(&out, secrets, HolderReport{Error: &holdwire.Failure{Code: fail.Rejected,
		Message: `server "a" answered HTTP 400: bad header X-Key: ` + secret, Hint: "not " + secret}})
	if strings.Contains(out.String(), "secret-value") {
		t.Fatalf("the report passes the secret on: %s", out.String())
	}
	var rep HolderReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil || rep.Error == nil {
		t.Fatalf("report %s: %v", out.String(), err)
	}
	if want := `server "a" answered HTTP 400: bad header X-Key: <redacted>`; rep.Error.Message != want || rep.Error.Hint != "not <redacted>" || rep.Error.Code != fail.Rejected {
		t.Fatalf("report = %+v", rep.Error)
	}
}
