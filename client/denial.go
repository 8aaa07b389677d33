package client

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/client/credentials"
	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/rawmsg"
)

// denialKey is SEP-2643's authorization denial envelope, in the _meta of
// the result that expresses a denial. The key is the gate: a server that
// does not implement the extension never sends it.
const denialKey = "io.modelcontextprotocol/authorization"

// maxDetailTypes bounds the authorization_details types a hint names.
const maxDetailTypes = 5

// Denial is an envelope as a failed result carried it, its strings one
// line each and bounded.
type Denial struct {
	// Remediation is available, unavailable or undisclosed.
	Remediation string
	ContextID   string // authorizationContextId, "" when absent
	// DetailTypes are the types of the authorization_details an
	// authorization_remediation hint asks for (RFC 9396).
	DetailTypes []string
}

// DenialOf reads the envelope of a result with isError; nil when it has
// none mcpc can use (another reason, an unknown remediation).
func DenialOf(raw []byte) *Denial {
	res := rawmsg.View(raw)
	if !res.Get("isError").Bool() {
		return nil
	}
	v := res.Get("_meta." + gjson.Escape(denialKey))
	d := &Denial{Remediation: v.Get("remediation").String(), ContextID: shortText(v.Get("authorizationContextId"))}
	if v.Get("reason").String() != "insufficient_authorization" || !slices.Contains([]string{"available", "unavailable", "undisclosed"}, d.Remediation) {
		return nil
	}
	if d.Remediation != "available" {
		return d // hints MUST NOT be there: none is read
	}
	v.Get("remediationHints").ForEach(func(_, h gjson.Result) bool {
		if h.Get("type").String() == "authorization_remediation" {
			h.Get("authorization_details").ForEach(func(_, det gjson.Result) bool {
				if t := shortText(det.Get("type")); t != "" && !slices.Contains(d.DetailTypes, t) {
					d.DetailTypes = append(d.DetailTypes, t)
				}
				return len(d.DetailTypes) < maxDetailTypes
			})
		}
		return len(d.DetailTypes) < maxDetailTypes
	})
	return d
}

// Failure is the denial as mcpc reports it: exit 4, with what to do next.
// A new credential over HTTP is a login; a stdio server's credential comes
// from its environment, which mcpc does not provision.
func (d *Denial) Failure(e *config.Entry, label, tool string) *fail.Error {
	msg := fmt.Sprintf("%s denied the call of %q on authorization grounds (SEP-2643, remediation %s", label, tool, d.Remediation)
	if d.ContextID != "" {
		msg += ", authorizationContextId " + d.ContextID
	}
	msg += ")"
	f := &fail.Error{Code: fail.AuthDenied, Msg: msg}
	switch {
	case d.Remediation == "unavailable":
		f.Hint = "no credential or approval can allow it: do not retry the call unchanged"
	case d.Remediation == "undisclosed":
		f.Hint = "the server does not say how to obtain access (its result may): do not retry the call unchanged"
	case e.Server.URL == "":
		f.Hint = "a stdio server takes its credentials from its environment: give it one with more authorization" + d.asked()
	default:
		f.Hint = "log in again for a credential with more authorization" + d.asked() + ": " + credentials.CredentialRef(e).Login
	}
	return f
}

// asked names what an authorization_remediation hint asks for, "" when
// none did.
func (d *Denial) asked() string {
	if len(d.DetailTypes) == 0 {
		return ""
	}
	return " (authorization_details of type " + strings.Join(d.DetailTypes, ", ") + ")"
}
