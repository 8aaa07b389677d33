package client

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/client/conn"
	"github.com/mcpc-dev/mcpc/client/holdwire"
	"github.com/mcpc-dev/mcpc/client/sessions"
	"github.com/mcpc-dev/mcpc/client/state"
	"github.com/mcpc-dev/mcpc/client/transport"
	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/fsx"
	"github.com/mcpc-dev/mcpc/internal/redact"
	"github.com/mcpc-dev/mcpc/internal/shellwords"
	"github.com/mcpc-dev/mcpc/internal/textsafe"
)

// HolderLine is what of an invocation the holder a keepAlive entry
// starts is told on its command line: which entry that is and how it is
// reached. The working directory and the environment reach the holder
// as they are.
type HolderLine struct {
	Program string // mcpc, as the invocation was run
	// ConfigFiles are every file the invocation read: the --config flags,
	// then MCPC_CONFIG's. The holder reads MCPC_CONFIG's once more from its
	// environment, after them; that changes nothing, since a later file
	// wins and they come again in the same order.
	ConfigFiles       []string
	Protocol          string
	ConnectTimeout    time.Duration
	ConnectTimeoutSet bool // --connect-timeout was given: it beats the entry's "timeout"
	ProbeTimeout      time.Duration
	MaxMessage        int64
	// Headers and BearerEnv are --header and --bearer-env: the holder
	// reaches the server with the invocation's credential, or every use
	// would be refused as another credential's. They reach it on its
	// stdin (holderSpec), never on a command line another user can read.
	Headers   []string
	BearerEnv string
}

// Args is the holder's command line (Sessions.HolderArgs): session
// start of the entry name, ending after idle without a request.
func (l HolderLine) Args(name string, idle time.Duration) []string {
	args := []string{l.Program, "session", "start", "--idle", idle.String()}
	for _, f := range l.ConfigFiles {
		args = append(args, "--config", f)
	}
	if l.Protocol != "" {
		args = append(args, "--protocol", l.Protocol)
	}
	if l.ConnectTimeoutSet {
		args = append(args, "--connect-timeout", l.ConnectTimeout.String())
	}
	if l.ProbeTimeout > 0 {
		args = append(args, "--probe-timeout", l.ProbeTimeout.String())
	}
	if l.MaxMessage > 0 {
		args = append(args, "--max-message", strconv.FormatInt(l.MaxMessage, 10))
	}
	for _, h := range l.Headers {
		args = append(args, "--header", h)
	}
	if l.BearerEnv != "" {
		args = append(args, "--bearer-env", l.BearerEnv)
	}
	return append(args, name) // a server name never begins with "-"
}

// DefaultSessionIdle is how long a session waits without a request.
const DefaultSessionIdle = 15 * time.Minute

// StartOptions is what mcpc session start asks for.
type StartOptions struct {
	Server string // SERVER, "" for a --stdio server
	Name   string // --name: the session's name, for a --stdio server only
	// Idle ends the session after that long without a request (0: until
	// stopped): the holder's (StartSession passes it on in Args).
	Idle time.Duration
	// Args is the holder's command line: the session start's own.
	Args  []string
	Shell bool // the session ends with the starter's parent
}

// StartSession is mcpc session start: the session of o.Server is
// started, or found running. running says it was; a running session of
// another target, or one holding its server with other credentials than
// this invocation's, is refused.
func (c *Connector[S]) StartSession(ctx context.Context, o StartOptions) (rec *state.SessionRecord, running bool, err error) {
	entry, name, err := c.sessionTarget(o.Server, o.Name)
	if err != nil {
		return nil, false, err
	}
	s := c.Sessions
	// Under the lock: two starts of one session make one holder, and a
	// dead holder's socket is cleaned up by one of them.
	unlock, err := s.Store.Lock(ctx, name)
	if err != nil {
		return nil, false, fmt.Errorf("cannot lock session %s: %w", textsafe.Name(name), err)
	}
	defer unlock()
	if rec, err = s.Running(ctx, name); err != nil {
		return nil, false, err
	}
	if rec != nil {
		if rec.Entry != sessions.EntryIdentity(entry, name) {
			return nil, false, fail.New(fail.Usage, "stop it first ('mcpc session stop "+shellwords.Quote(name)+"'), or choose another --name",
				"session %s is running and holds another target (%s)", textsafe.Name(name), textsafe.Name(rec.Server))
		}
		opts, err := c.ConnectOptions(ctx, entry)
		if err == nil {
			err = s.SameCredentials(entry, rec, opts)
		}
		if err != nil {
			return nil, false, err
		}
		textsafe.Note(s.Notes, "session %s is already running", textsafe.Name(name))
		return rec, true, nil
	}
	stop := c.showSessionStart(entry, name)
	rec, err = s.Start(ctx, name, o.Args, o.Shell)
	stop()
	if err != nil {
		return nil, false, err
	}
	if note := sessions.StatelessNote(rec); note != "" {
		textsafe.Note(s.Notes, "%s", note)
	}
	return rec, false, nil
}

// HoldSession is the holder of the session mcpc session start (o)
// starts (Sessions.Hold), run in the process Spawn started, holding as h
// says. It reports to its starter on to (HolderArgs' HolderOut),
// which also tells it the shell a --shell session ends with. The starter
// waits for a report: a failure before the holder serves is reported
// too, as failure words it for an exit status.
func (c *Connector[S]) HoldSession(ctx context.Context, o StartOptions, to io.Writer, h sessions.HoldOptions, failure func(error) *fail.Error) (err error) {
	reported := false
	h.Idle, h.Secrets = o.Idle, c.Secrets
	h.Report = func(rep sessions.HolderReport) {
		reported = true
		sessions.ReportToStarter(to, h.Secrets, rep)
	}
	defer func() {
		if err != nil && !reported {
			h.Report(sessions.HolderReport{Error: holdwire.FailureOf(failure(err))})
		}
	}()
	if h.Entry, h.Name, err = c.sessionTarget(o.Server, o.Name); err != nil {
		return err
	}
	if ho, ok := to.(*sessions.HolderOut); ok && o.Shell {
		h.Shell = ho.Shell
	}
	if o.Shell && h.Shell == nil {
		return fail.New(fail.Internal, "", "the holder was not told which shell it ends with")
	}
	var rec sessionRecord
	defer rec.close(c.Stderr)
	h.Connect = func(ctx context.Context) (conn.ConnectOptions, error) {
		o, err := c.ConnectOptions(ctx, h.Entry)
		if err == nil {
			o.Record, err = rec.open(h.Entry, h.Name, c.Cwd, o, c.Secrets)
		}
		return o, err
	}
	return c.Sessions.Hold(ctx, h)
}

// sessionRecord is the recording of a holder's connections, when its
// entry has "record": one file in that directory for the holder, opened
// with its first connection, in place when the holder ends.
type sessionRecord struct {
	r    *transport.Recorder
	path string
}

func (s *sessionRecord) open(e *config.Entry, name, cwd string, o conn.ConnectOptions, secrets *redact.Set) (*transport.Recorder, error) {
	if e.Server.Record == "" || s.r != nil {
		return s.r, nil
	}
	dir := e.Server.Record
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(e.ConfigDir(cwd), dir)
	}
	safe := strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r < 0x20 || r == 0x7f {
			return '_'
		}
		return r
	}, name)
	s.path = filepath.Join(dir, fmt.Sprintf("%s-%s-%d.jsonl", safe, time.Now().UTC().Format("20060102T150405Z"), os.Getpid()))
	err := os.MkdirAll(dir, 0o700)
	if err == nil {
		s.r, err = transport.CreateRecorder(s.path, transport.RecordOptions{Secrets: secrets, MaxMessage: o.MaxMessage, Client: o.Version})
	}
	if err != nil {
		return nil, fail.New(fail.Config, fmt.Sprintf("fix \"record\" of server %q in %s: a directory you can write", e.Name, e.SourceName()),
			"cannot record the session of %q into %s: %v", e.Name, dir, fsx.Reason(err))
	}
	return s.r, nil
}

// close puts the recording in place; a failure to is told to w (the
// holder's log).
func (s *sessionRecord) close(w io.Writer) {
	if err := s.r.Close(); err != nil && w != nil {
		fmt.Fprintf(w, "mcpc: the recording %s was not written: %v\n", s.path, err)
	}
}

// sessionTarget resolves what session start holds, and its name: a
// configured server's own, or --name for a --stdio server.
func (c *Connector[S]) sessionTarget(server, name string) (*config.Entry, string, error) {
	entry, err := c.Resolve(server)
	if err != nil {
		return nil, "", err
	}
	switch {
	case name != "" && entry.File != nil:
		return nil, "", fail.New(fail.Usage, "leave out --name: a configured server's session is named after it", "--name applies to a --stdio server only")
	case name != "":
		if cfg, err := c.Config(); err == nil && cfg.Servers[name] != nil {
			// A call naming it would mean the configured server.
			return nil, "", fail.New(fail.Usage, "choose another --name", "%q is a configured server's name", name)
		}
	case entry.File == nil:
		return nil, "", fail.New(fail.Usage, "mcpc session start --name NAME --stdio 'command args'", "a --stdio server's session needs --name NAME")
	default:
		name = entry.Name
	}
	if name == "" || strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f }) || len(name) > 200 {
		return nil, "", fail.New(fail.Usage, "a session name is 1 to 200 bytes with no control characters", "invalid session name %q", name)
	}
	return entry, name, nil
}
