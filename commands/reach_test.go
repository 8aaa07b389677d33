package commands

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/internal/fail"
)

// listingSession records the names ListTools was given, and fails it
// when told to.
type listingSession struct {
	fakeSession
	asked []string
	err   error
}

func (s *listingSession) ListTools(_ context.Context, only ...string) ([]*mcp.Tool, error) {
	s.asked = append(s.asked, only...)
	return []*mcp.Tool{{Name: "echo"}}, s.err
}

// The one way to a server a command names: what it refuses is refused
// before anything is started, the tools it lists are listed by name, a
// listing that fails closes the connection, and a command that lists
// nothing sends no list.
func TestReach(t *testing.T) {
	stdioOnly := func(e *config.Entry) error {
		if e.Server.URL == "" {
			return fail.New(fail.Usage, "", "refused %s", e.Name)
		}
		return nil
	}
	listFails := fail.New(fail.Connection, "", "list failed")
	for _, tc := range []struct {
		name    string
		server  string
		o       reachOptions
		listErr error
		err     string
		opened  bool
		asked   string
		tools   int
		closed  int
	}{
		{name: "no server", server: "", err: "missing SERVER"},
		{name: "refused before a connect", server: "local", o: reachOptions{refuse: stdioOnly}, err: "refused local"},
		{name: "open, no list", server: "https://x.example/mcp", o: reachOptions{refuse: stdioOnly}, opened: true},
		{name: "the tools named", server: "local", o: reachOptions{listTools: true, tools: []string{"echo", "add"}}, opened: true, asked: "echo,add", tools: 1},
		{name: "a failed list closes", server: "local", o: reachOptions{listTools: true, tools: []string{"echo"}}, listErr: listFails, err: "list failed", opened: true, asked: "echo", closed: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var sess *listingSession
			closed := 0
			rio := runIO{
				resolve: func(server string) (*config.Entry, error) {
					if server == "" {
						return nil, usagef("", "missing SERVER")
					}
					e := &config.Entry{Name: server, Server: &config.Server{}}
					if strings.HasPrefix(server, "https:") {
						e.Server.URL = server
					}
					return e, nil
				},
				openEntry: func(_ context.Context, e *config.Entry) (connection, func(), error) {
					sess = &listingSession{fakeSession: fakeSession{f: &fakeServer{}, name: e.Name}, err: tc.listErr}
					return sess, func() { closed++ }, nil
				},
			}
			r, err := rio.reach(context.Background(), tc.server, tc.o)
			if got := errText(err); got != tc.err {
				t.Fatalf("error %q, want %q", got, tc.err)
			}
			if (sess != nil) != tc.opened {
				t.Fatalf("opened %v, want %v", sess != nil, tc.opened)
			}
			if sess != nil && strings.Join(sess.asked, ",") != tc.asked {
				t.Errorf("listed %q, want %q", sess.asked, tc.asked)
			}
			if closed != tc.closed {
				t.Errorf("closed %d times, want %d", closed, tc.closed)
			}
			if err == nil && (r.entry.Name != tc.server || r.sess != sess || len(r.tools) != tc.tools) {
				t.Errorf("reached %+v", r)
			}
		})
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
