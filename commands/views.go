package commands

import (
	"github.com/mcpc-dev/mcpc/client/sessions"

	"github.com/mcpc-dev/mcpc/format"
)

// This file is the one place where client's records become format's
// views of them as text: format.Session and format.SessionRow mirror
// sessions.SessionShown and sessions.SessionListed, and a grep line's cells
// are client.MatchRows'.
//
// format may import only leaves (layers_test.go), so it cannot take
// client's types. The records could move down to a leaf that both
// import, but they are not format's: their JSON tags are mcpc's stable
// JSON output (printed as they are, untouched by format), their statuses
// the holder's words, and they change with the sessions and search code
// that fills them; a leaf of shared records would grow every client
// record a printer one day needs, and tie each to format. The view is
// text's own: no tags, only what a line shows. So the mirror stays, and
// views_test.go sets each field of each client record alone and fails
// when the view does not change: a field added to a record and not to its
// view, or not converted here, is caught there.
//
// The other records format shows (client.CheckRow, client.ServerRow, a
// task's answer) have no mirror: format renders their JSON, the record's
// own encoding, by its keys, so there is one type.

// sessionView is session start's text view of s. The conversion is Go's:
// it compiles only while both have the same fields.
func sessionView(s sessions.SessionShown) format.Session { return format.Session(s) }

// sessionRow is session list's text view of one session.
func sessionRow(l sessions.SessionListed) format.SessionRow {
	return format.SessionRow{Session: sessionView(l.SessionShown), Status: l.Status, Age: l.Age,
		IdleLeft: l.IdleLeft, Requests: l.Requests, Memory: l.Memory, Ended: l.Ended}
}
