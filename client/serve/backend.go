package serve

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// A Line is one downstream client's way to what serve lends: a Link to
// one server's holder, or a fan of links to several (Aggregate).
type Line interface {
	Send(jsonrpc.Message) error
	Receive() (jsonrpc.Message, error)
	Close() error
}

// A Backend is what serve lends: one server (Upstream) or several as one
// (Aggregate). Each downstream client opens a Line of its era.
type Backend interface {
	Open(ctx context.Context, era Era) (Line, error)
	Label() string     // how messages name it
	MaxMessage() int64 // the bound of one message, both ways
}

// Open is u.Link as a Line, translated when the server speaks the
// other era only (translate.go).
func (u *Upstream) Open(ctx context.Context, era Era) (Line, error) {
	return u.line(ctx, era)
}

// Label is the server's, for messages.
func (u *Upstream) Label() string { return u.Name }

// MaxMessage is u.Limit.
func (u *Upstream) MaxMessage() int64 { return u.Limit }
