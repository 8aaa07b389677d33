package client

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/client/conn"
	"github.com/mcpc-dev/mcpc/internal/fail"
)

// fakeConn is a connection Connector opened: it records how it ended.
type fakeConn struct {
	ended, interrupted bool
}

func (f *fakeConn) End(_ context.Context, interrupted bool) {
	f.ended, f.interrupted = true, interrupted
}

var errTestInterrupt = errors.New("interrupted")

// testConnector reaches a --stdio server through a fake Dial that
// records the options it was given.
func testConnector(t *testing.T, cfg *config.Config, dialed *[]conn.ConnectOptions) *Connector[*fakeConn] {
	t.Helper()
	sessions, _ := testSessions(t)
	return &Connector[*fakeConn]{
		Config:       func() (*config.Config, error) { return cfg, nil },
		ServerStderr: "hide",
		Stderr:       new(bytes.Buffer),
		Options:      func(*config.Entry) conn.ConnectOptions { return conn.ConnectOptions{Version: "test"} },
		Sessions:     sessions,
		Interrupt:    errTestInterrupt,
		Dial: func(_ context.Context, e *config.Entry, o conn.ConnectOptions) (*fakeConn, error) {
			*dialed = append(*dialed, o)
			return &fakeConn{}, nil
		},
	}
}

func TestConnectorOpenDialsWithOptionsAndEnds(t *testing.T) {
	var dialed []conn.ConnectOptions
	c := testConnector(t, &config.Config{Servers: map[string]*config.Entry{}}, &dialed)
	c.AdHoc = config.AdHoc{Stdio: "srv --flag"}
	conn, closeFn, err := c.Open(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	if len(dialed) != 1 || dialed[0].Version != "test" || dialed[0].Held != nil {
		t.Fatalf("dialed %+v, want once with Options' settings and no held session", dialed)
	}
	closeFn()
	if !conn.ended || conn.interrupted {
		t.Fatalf("closed %+v, want ended, not interrupted", conn)
	}
}

func TestConnectorCloseAfterInterruptSaysSo(t *testing.T) {
	var dialed []conn.ConnectOptions
	c := testConnector(t, &config.Config{}, &dialed)
	c.AdHoc = config.AdHoc{Stdio: "srv"}
	ctx, cancel := context.WithCancelCause(context.Background())
	conn, closeFn, err := c.Open(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	cancel(errTestInterrupt)
	closeFn()
	if !conn.interrupted {
		t.Fatal("End was not told of the interrupt")
	}
}

func TestConnectorRefusesNoFilterForAProjectServer(t *testing.T) {
	var dialed []conn.ConnectOptions
	proj := &config.File{Path: ".mcp.json", Source: config.SourceProject}
	entry := &config.Entry{Name: "p", Server: &config.Server{Command: "srv"}, File: proj}
	c := testConnector(t, &config.Config{Servers: map[string]*config.Entry{"p": entry}}, &dialed)
	c.NoFilter = true
	_, _, err := c.Open(context.Background(), "p")
	var fe *fail.Error
	if !errors.As(err, &fe) || fe.Code != fail.Config ||
		fe.Msg != `--no-filter is refused for server "p": it comes from the project file .mcp.json` ||
		fe.Hint != "the filter may be why the project was trusted; to see every tool, define the server in your user config" {
		t.Fatalf("err = %#v", err)
	}
	if len(dialed) != 0 {
		t.Fatal("dialed a server --no-filter was refused for")
	}
}

func TestConnectorResolveFailureDialsNothing(t *testing.T) {
	var dialed []conn.ConnectOptions
	c := testConnector(t, &config.Config{Servers: map[string]*config.Entry{}}, &dialed)
	c.NoSession = true // no --stdio session stands for the name either
	_, _, err := c.Open(context.Background(), "nosuch")
	if fail.CodeOf(err) != fail.Config || len(dialed) != 0 {
		t.Fatalf("err = %v (code %v), dialed %d", err, fail.CodeOf(err), len(dialed))
	}
}

func TestConnectorDialFailureStands(t *testing.T) {
	c := testConnector(t, &config.Config{}, new([]conn.ConnectOptions))
	c.AdHoc = config.AdHoc{Stdio: "srv"}
	refused := fail.New(fail.Connection, "", "cannot start srv")
	c.Dial = func(context.Context, *config.Entry, conn.ConnectOptions) (*fakeConn, error) { return nil, refused }
	conn, closeFn, err := c.Open(context.Background(), "")
	if !errors.Is(err, refused) || conn != nil || closeFn != nil {
		t.Fatalf("got %v, %v, %v", conn, closeFn != nil, err)
	}
}
