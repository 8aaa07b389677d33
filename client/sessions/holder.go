package sessions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/mcpc-dev/mcpc/client/hold"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/mcpc-dev/mcpc/client/conn"

	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/client/holdwire"
	"github.com/mcpc-dev/mcpc/client/state"
	"github.com/mcpc-dev/mcpc/client/transport"
	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/fsx"
	redaction "github.com/mcpc-dev/mcpc/internal/redact"
	"github.com/mcpc-dev/mcpc/internal/textsafe"
)

// HolderCommand is the hidden command line of a session's holder: mcpc
// itself, detached. What it holds comes on its stdin (a --stdio command
// may carry a secret; a command line is visible to every user).
const HolderCommand = "__holder"

// HolderReport is what a holder tells the invocation that started it:
// its record once the server answered the handshake, or the failure.
type HolderReport struct {
	Record *state.SessionRecord `json:"record,omitempty"`
	Error  *holdwire.Failure    `json:"error,omitempty"`
}

// maxHolderReport bounds what the starter reads of its holder's report,
// and the holder of its spec.
const maxHolderReport = 1 << 20

// holderSpec is what a holder reads on its stdin: the command line of
// the session start it serves, and with --shell the process whose exit
// ends the session (the starter's parent: a holder's own parent is the
// starter, which exits at once).
type holderSpec struct {
	Args  []string `json:"args"`
	Shell *Watched `json:"shell,omitempty"`
}

// Watched is a process a holder watches: its pid, and its start
// (transport.ProcessStart) so that a reused pid is not taken for it.
type Watched struct {
	PID   int    `json:"pid"`
	Start string `json:"start"`
}

// HolderOut is where a holder's report to its starter goes, and what
// else the starter told it.
type HolderOut struct {
	io.Writer
	Shell *Watched
}

// Close closes what the report went to: the starter reads it to its end.
func (o *HolderOut) Close() error {
	if c, ok := o.Writer.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// HolderArgs is the command line a holder runs when args are the
// holder's (HolderCommand): read from in (bounded), its report going to
// out, returned as a *HolderOut. Other args come back as they are, with
// no writer.
func HolderArgs(args []string, in io.Reader, out io.Writer) ([]string, io.Writer, error) {
	if len(args) != 2 || args[1] != HolderCommand {
		return args, nil, nil
	}
	b, err := io.ReadAll(io.LimitReader(in, maxHolderReport))
	var spec holderSpec
	if err == nil {
		err = json.Unmarshal(b, &spec)
	}
	if err != nil || len(spec.Args) < 2 {
		return nil, nil, fail.New(fail.Usage, "", "%s is mcpc's own: it is started by mcpc session start", HolderCommand)
	}
	return spec.Args, &HolderOut{Writer: out, Shell: spec.Shell}, nil
}

// ReportToStarter tells the starter, on w, how the start went; it is
// written once. A failure is told with the holder's secrets redacted:
// the starter prints it on its stderr, whose redaction knows none of
// them (it reached no server, loaded no login).
func ReportToStarter(w io.Writer, secrets *redaction.Set, rep HolderReport) {
	if rep.Error != nil {
		rep.Error = rep.Error.Redacted(secrets)
	}
	b, _ := json.Marshal(rep)
	w.Write(b)
	if c, ok := w.(io.Closer); ok {
		c.Close()
	}
}

// Spawn starts the holder of the session start args, detached, and
// waits for its report. With shell the session ends with this process's
// parent.
func (s *Sessions) Spawn(ctx context.Context, args []string, shell bool) (*HolderReport, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("cannot find mcpc's own executable: %w", err)
	}
	hs := holderSpec{Args: args}
	if shell {
		// The shell is alive while it waits for this command, so the
		// holder finds it (and on Linux its start time) still there.
		ppid := os.Getppid()
		hs.Shell = &Watched{PID: ppid, Start: transport.ProcessStart(ppid)}
	}
	spec, err := json.Marshal(hs)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe, HolderCommand)
	cmd.Dir = s.Cwd
	cmd.Env = append(s.Environ(), s.holderTag())
	cmd.SysProcAttr = holderAttr()
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("cannot start the session's holder: %w", err)
	}
	// The holder outlives this invocation: it is nobody's child to wait
	// for once it has reported.
	defer cmd.Process.Release()
	in.Write(spec)
	in.Close()
	return awaitReport(ctx, cmd.Process, out)
}

// holderTagKey is the environment variable that tells a holder's
// process from others: its value is the store whose session it holds.
const holderTagKey = "MCPC_HOLDER_STORE"

// holderTag is the environment entry of this store's holders (the last
// of its name wins, over one the starter inherited): session stop --all
// finds by it a holder that no record names any more.
func (s *Sessions) holderTag() string {
	root := s.Store.Root()
	if abs, err := filepath.Abs(root); err == nil {
		root = abs // the same from every working directory
	}
	return holderTagKey + "=" + root
}

// awaitReport reads the report of the holder p on out.
func awaitReport(ctx context.Context, p *os.Process, out io.Reader) (*HolderReport, error) {
	got := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(io.LimitReader(out, maxHolderReport))
		got <- b
	}()
	var b []byte
	select {
	case b = <-got:
	case <-ctx.Done():
		// The holder stops its server when it is told to end.
		stopHolder(p)
		return nil, context.Cause(ctx)
	}
	var rep HolderReport
	if err := json.Unmarshal(b, &rep); err != nil || rep.Record == nil && rep.Error.Raise(nil) == nil {
		// A holder already gone when its report is missing ended on its
		// own (often killed by the server it started): its wait status
		// says how, which is no bug of mcpc's.
		gone := !processAlive(p.Pid)
		stopHolder(p)
		if how := holderEnd(p, gone); how != "" {
			return nil, fail.New(fail.Connection, "the server it started may have ended it: try the server in a one-shot command (mcpc list) to see what it does",
				"the session's holder ended before it reported (%s)", how)
		}
		return nil, fail.New(fail.Internal, "", "the session's holder ended without saying why")
	}
	return &rep, nil
}

// holderEndWait bounds how long a starter waits for a holder without a
// report to end: one that outlives mcpc's SIGTERM is left to itself.
const holderEndWait = 2 * time.Second

// holderEnd is how the holder p ended, once it has, or "" when that
// cannot be told from mcpc's own SIGTERM (it was still running when
// gone was taken) or it does not end soon after.
func holderEnd(p *os.Process, gone bool) string {
	waited := make(chan *os.ProcessState, 1)
	go func() {
		st, _ := p.Wait()
		waited <- st
	}()
	select {
	case st := <-waited:
		if st == nil {
			return ""
		}
		// A signal other than mcpc's own SIGTERM came from elsewhere.
		if ws, ok := st.Sys().(syscall.WaitStatus); gone || ok && ws.Signaled() && ws.Signal() != syscall.SIGTERM {
			return transport.ExitText(st)
		}
	case <-time.After(holderEndWait):
	}
	return ""
}

// HoldOptions says what a holder holds and how.
type HoldOptions struct {
	Entry    *config.Entry
	Name     string
	Idle     time.Duration // 0: until stopped
	IdleText string        // Idle as the record states it
	Shell    *Watched      // the process whose exit ends the session
	// Served says the holder runs inside mcpc serve (the record says so:
	// SessionRecord.Served).
	Served bool
	// Connect gives the options that reach Entry's server.
	Connect   func(context.Context) (conn.ConnectOptions, error)
	Secrets   *redaction.Set
	WriteWait time.Duration // replaces Holder.WriteWait when set
	// Report tells the starter the session's record, once it serves.
	Report func(HolderReport)
}

// Hold is the holder: it starts the server through the one-shot's
// connect, listens on the session's socket, reports to the starter and
// serves until the session ends.
func (s *Sessions) Hold(ctx context.Context, o HoldOptions) error {
	if o.Shell != nil {
		// The shell's exit ends the session as SIGTERM would: the
		// server is stopped and the record removed.
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		gone := transport.WatchProcess(ctx, o.Shell.PID, o.Shell.Start)
		go func() {
			<-gone
			cancel()
		}()
	}
	if err := fsx.PrivateDir(s.Store.Dir(o.Name)); err != nil {
		return err
	}
	logw, err := openSessionLog(s.Store.LogFile(o.Name))
	if err != nil {
		return fmt.Errorf("cannot open the session's log: %w", err)
	}
	defer logw.Close()
	opts, err := o.Connect(ctx)
	if err != nil {
		return err
	}
	// The log is shown by mcpc session logs: what the server was sent
	// from the environment (registered by Connect) is redacted there, as
	// on a one-shot's stderr.
	redw := redaction.NewWriter(logw, o.Secrets)
	defer redw.Close()
	// The held server's group ends with the holder, killed outright too.
	opts.ServerStderr, opts.Input, opts.GuardGroup = redw, hold.HolderInput(), true
	// The start-up's cut is said where its stderr went, as a one-shot
	// says it on its own.
	opts.Input.Note = logw.note(redw)
	sess, err := conn.Connect(ctx, o.Entry, opts)
	if err != nil {
		return err
	}
	defer sess.Close()
	h, err := s.holder(sess, o, redw)
	if err != nil {
		return err
	}
	ln, err := transport.ListenSocket(s.Store.Socket(o.Name))
	if err != nil {
		return fmt.Errorf("cannot listen on the session's socket: %w", err)
	}
	defer ln.Close()
	rec, err := s.record(sess, h, o, opts)
	if err != nil {
		return err
	}
	o.Report(HolderReport{Record: rec})
	sctx, unwatch := whileSocket(ctx, rec.Socket)
	ended, _ := h.Serve(sctx, ln, o.Idle)
	if ended == "" && errors.Is(context.Cause(sctx), errSocketGone) {
		ended = errSocketGone.Error()
	}
	unwatch()
	if cur := s.Store.Read(rec.Name); ended != "" && cur != nil && cur.PID == rec.PID {
		// Said before the socket closes and the invocations attached are
		// let go: they, and any that finds the socket closed, name it.
		// A record another holder has written since is left alone.
		rec.Ended = ended
		s.Store.Write(rec)
	}
	ln.Close()
	h.Close()
	sess.Close()
	s.release(rec, ended)
	return nil
}

// errSocketGone ends a session whose socket's file was removed (or
// replaced) while it ran: nothing could reach it any more, a stop
// included, and it would run unreachable for good.
var errSocketGone = errors.New("its socket was removed while it ran, so nothing could reach it: it ended, and its server with it")

// whileSocket is ctx, ended with errSocketGone once the socket at path is
// gone (transport.WatchSocket), until unwatch.
func whileSocket(ctx context.Context, path string) (_ context.Context, unwatch func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	gone := transport.WatchSocket(ctx, path)
	go func() {
		select {
		case <-gone:
			cancel(errSocketGone)
		case <-ctx.Done():
		}
	}()
	return ctx, func() { cancel(nil) }
}

// holder is the Holder of sess, logging to log.
func (s *Sessions) holder(sess *conn.Conn, o HoldOptions, log io.Writer) (*hold.Holder, error) {
	h, err := hold.NewHolder(sess)
	if errors.Is(err, conn.ErrNotHeld) {
		// Holding one would take a second relay: the holder could not
		// tell a request's failure from its POST (always 202) nor post
		// beside the SDK to the endpoint its stream announced.
		hint := `use it without a session; if it also speaks Streamable HTTP, set "type": "http" on its entry`
		switch {
		case o.Entry.File == nil:
			hint = "use it without a session; if it also speaks Streamable HTTP, pass --transport http"
		case o.Entry.Server.KeepAlive > 0:
			hint = `remove "keepAlive" from its entry, or call it with --no-session; if it also speaks Streamable HTTP, set "type": "http" on its entry`
		}
		return nil, fail.New(fail.Usage, hint, "%s speaks the HTTP+SSE transport (2024-11-05), which a session cannot hold: "+
			"its answers come only on the event stream of the connection that sent the request", sess.Label)
	}
	if err != nil {
		return nil, err
	}
	h.Refused = func(err error) { textsafe.Note(log, "the session refused a connection: %v", err) }
	h.Log = func(msg string) { textsafe.Note(log, "%s", msg) }
	h.Name = o.Name
	if o.WriteWait > 0 {
		h.WriteWait = o.WriteWait
	}
	return h, nil
}

// record writes the record of the session h holds.
func (s *Sessions) record(sess *conn.Conn, h *hold.Holder, o HoldOptions, opts conn.ConnectOptions) (*state.SessionRecord, error) {
	creds, err := s.credentialParts(o.Entry, opts)
	if err != nil {
		return nil, err
	}
	rec := &state.SessionRecord{
		Creds: creds, Name: o.Name, Server: SessionServerName(o.Entry), Transport: heldTransport(sess), Revision: sess.ProtocolVersion(),
		PID: os.Getpid(), HolderStart: transport.ProcessStart(os.Getpid()), ServerPID: h.ServerPID(), Idle: o.IdleText, Started: s.Now().UTC(),
		Key: conn.SessionKey(o.Entry, opts.CredentialID), Entry: EntryIdentity(o.Entry, o.Name), Socket: s.Store.Socket(o.Name),
		Def: conn.SessionKey(o.Entry, ""),
	}
	if o.Shell != nil {
		rec.Shell = o.Shell.PID
	}
	rec.Served = o.Served
	if g, ok := h.ServerGroup(); ok {
		rec.ServerGroup, rec.ServerStart = g, transport.ProcessStart(rec.ServerPID)
	}
	if err := s.Store.Write(rec); err != nil {
		return nil, fmt.Errorf("cannot write the session's record: %w", err)
	}
	return rec, nil
}

// release removes the socket of the session rec, under its lock, and its
// record unless it says why it ended; a record already another holder's
// is left alone.
func (s *Sessions) release(rec *state.SessionRecord, ended string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	unlock, err := s.Store.Lock(ctx, rec.Name)
	if err != nil {
		return
	}
	defer unlock()
	if cur := s.Store.Read(rec.Name); cur != nil && cur.PID == rec.PID {
		s.Store.RemoveSocket(rec.Name)
		if ended == "" {
			s.Store.Remove(rec.Name)
		}
	}
}

// heldTransport is how a session's record names what its holder speaks
// to the server.
func heldTransport(s *conn.Conn) string {
	if s.Entry.Server.URL == "" {
		return "stdio"
	}
	return "http"
}

// sessionLogLimit bounds a session's server log: past it the log is
// moved aside (one older file kept) and begun again.
const sessionLogLimit = 1 << 20

// sessionLog is a held server's stderr, kept bounded in the session's
// private directory.
type sessionLog struct {
	mu   sync.Mutex
	path string
	f    *os.File
	n    int64
}

func openSessionLog(path string) (*sessionLog, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, err
	}
	return &sessionLog{path: path, f: f}, nil
}

func (l *sessionLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return len(p), nil
	}
	// An empty file is not moved aside: that would drop the older one
	// for nothing.
	if l.n > 0 && l.n+int64(len(p)) > sessionLogLimit {
		l.f.Close()
		os.Rename(l.path, l.path+".1")
		f, err := os.OpenFile(l.path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
		if err != nil {
			l.f = nil
			return len(p), nil
		}
		l.f, l.n = f, 0
	}
	n, err := l.f.Write(p)
	l.n += int64(n)
	return n, err
}

// note is how a note about the server's stderr goes into the log:
// through w (the log's redacting writer), after what it holds.
func (l *sessionLog) note(w io.Writer) func(string) {
	return func(msg string) { textsafe.Note(w, "%s", textsafe.OneLine(msg)) }
}

func (l *sessionLog) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}
