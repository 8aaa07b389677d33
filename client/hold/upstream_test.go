package hold

import (
	"context"
	"net/http"

	"github.com/mcpc-dev/mcpc/client/input"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcpc-dev/mcpc/client/conn"
	"github.com/mcpc-dev/mcpc/client/transport"
	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/redact"
)

// The connection's relay is what a holder holds.
var _ Upstream = (*conn.Relay)(nil)

// fakeUpstream is a held server with nothing behind it: what the
// holder's routing reads of one (its label, its bound, its secrets).
type fakeUpstream struct {
	label   string
	http    bool
	max     int64
	secrets *redact.Set
}

func (f *fakeUpstream) Label() string            { return f.label }
func (f *fakeUpstream) HTTP() bool               { return f.http }
func (f *fakeUpstream) Modern() bool             { return false }
func (f *fakeUpstream) MaxMessage() int64        { return f.max }
func (f *fakeUpstream) Secrets() *redact.Set     { return f.secrets }
func (f *fakeUpstream) Envelope() map[string]any { return nil }
func (f *fakeUpstream) WriteStdin(context.Context, jsonrpc.Message) error {
	return nil
}
func (f *fakeUpstream) Post(context.Context, []byte, string, string) (*http.Response, error) {
	return nil, context.Canceled
}
func (f *fakeUpstream) HTTPSession() string                                { return "" }
func (f *fakeUpstream) Server() *transport.Process                         { return nil }
func (f *fakeUpstream) Wait()                                              {}
func (f *fakeUpstream) FramingBroken(string) (*fail.Error, string, string) { return nil, "", "" }
func (f *fakeUpstream) LimitExplained(err error, raise string) *fail.Error {
	return &fail.Error{Code: fail.TooLarge, Err: err, Msg: f.label + " sent a message over the limit", Hint: raise}
}

// Explain words err as the one-shot's explainer does in shape: the
// server's label and the error's text, which the holder redacts.
func (f *fakeUpstream) Explain(_ context.Context, what string, err error) error {
	return &fail.Error{Code: fail.Connection, Err: err, Msg: "cannot " + what + " " + f.label + ": " + err.Error()}
}
func (f *fakeUpstream) Scrub(err error) string { return err.Error() }

// shownAt says which log levels an invocation at level shows.
func shownAt(level string) func(string) bool {
	return func(lv string) bool { return input.LevelRank(lv) >= input.LevelRank(level) }
}
