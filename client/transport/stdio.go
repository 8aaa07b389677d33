package transport

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcpc-dev/mcpc/internal/blockbuf"
	"github.com/mcpc-dev/mcpc/internal/rawmsg"
)

// Grace periods for stopping a stdio server: first its stdin is closed (the
// polite MCP shutdown), then its process tree is asked to stop (SIGTERM to
// the group; CTRL_BREAK on Windows), then killed.
const (
	stdinGrace = 1 * time.Second
	termGrace  = 2 * time.Second
	// CloseGrace is how long a session's close waits for the SDK before
	// the server is stopped: a wedged server must not hold the invocation.
	CloseGrace = stdinGrace + termGrace
)

// Process is a running stdio server in its own process group (in a Job
// object on Windows).
type Process struct {
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	done    chan struct{}
	waitErr error
	tail    *tailBuffer
	stdout  *lineChecker
	tree    *tree // the server and what it starts: see contain
	stderr  *stderrPipe
	// cancelSent is closed once a notifications/cancelled message has been
	// written to the server: the SDK sends it from a goroutine, and tearing
	// the server down before it is written would hide the cancellation.
	cancelSent chan struct{}
	// guard is the group's guard (Guard), guardIn the pipe it watches;
	// guard is set under live.mu, which children reads it under.
	guard   *exec.Cmd
	guardIn io.Closer

	stopOnce sync.Once
}

// StartProcess starts argv in its own process group so that the whole tree
// (npx → node, uvx → python, …) can be signalled at once, and so the
// terminal's Ctrl-C reaches mcpc only: mcpc then cancels the request over
// the protocol and tears the server down itself. The server's stderr goes
// to stderr (nil hides it); its last lines are kept (StderrTail).
func StartProcess(argv []string, env []string, dir string, stderr io.Writer) (*Process, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	cmd.Dir = dir
	cmd.SysProcAttr = serverAttr()
	p := &Process{cmd: cmd, done: make(chan struct{}), tail: &tailBuffer{max: 20}, cancelSent: make(chan struct{})}
	if stderr == nil {
		stderr = io.Discard
	}
	errPipe, errW, err := newStderrPipe()
	if err != nil {
		return nil, err
	}
	p.stderr = errPipe
	cmd.Stderr = errW
	// A grandchild that inherited stdout keeps the pipe open after the
	// server exits; WaitDelay stops Wait from blocking on it forever.
	cmd.WaitDelay = termGrace
	in, err := cmd.StdinPipe()
	if err != nil {
		errPipe.f.Close()
		errW.Close()
		return nil, err
	}
	p.stdin = &watchWriter{w: in, seen: p.cancelSent}
	out, err := cmd.StdoutPipe()
	if err != nil {
		errPipe.f.Close()
		errW.Close()
		return nil, err
	}
	// Started and recorded as one step: another server's teardown, which
	// stops mcpc's children that are not live servers (stopOrphans), must
	// never see this one between the two.
	live.mu.Lock()
	err = cmd.Start()
	if err == nil {
		live.m[p] = true
	}
	live.mu.Unlock()
	errW.Close() // the server has its copy; EOF comes when it and its children close theirs
	if err != nil {
		errPipe.f.Close()
		return nil, err
	}
	go errPipe.copyTo(&lineWriter{out: stderr, tail: p.tail})
	if p.tree, err = contain(cmd); err != nil {
		live.remove(p)
		cmd.Process.Kill()
		cmd.Wait()
		return nil, err
	}
	p.stdout = &lineChecker{r: bufio.NewReaderSize(out, 64<<10), c: out, limit: DefaultMaxMessage}
	go func() {
		p.waitErr = cmd.Wait()
		// Its last words are read before it is said to have exited; a
		// grandchild that inherited stderr and keeps it open is given
		// the grace Wait gives stdout.
		select {
		case <-errPipe.done:
		case <-time.After(termGrace):
			errPipe.f.Close()
			<-errPipe.done
		}
		close(p.done)
	}()
	return p, nil
}

// Exited reports whether the server has exited.
func (p *Process) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// PID is the server's process id.
func (p *Process) PID() int { return p.cmd.Process.Pid }

// Done is closed once the server has exited.
func (p *Process) Done() <-chan struct{} { return p.done }

// CancelSent is closed once a notifications/cancelled message has been
// written to the server.
func (p *Process) CancelSent() <-chan struct{} { return p.cancelSent }

// ProtocolError is what the server wrote to stdout that is not JSON, once
// it has; nil before.
func (p *Process) ProtocolError() *ProtocolError { return p.stdout.protocolError() }

// StderrMark is the number of bytes the server has written to stderr so
// far, whether mcpc has read them yet or not.
func (p *Process) StderrMark() int64 { return p.stderr.Mark() }

// StderrTail is the server's last lines on stderr, oldest first, kept
// even when its stderr is hidden.
func (p *Process) StderrTail() []string { return p.tail.Lines() }

// ExitStatus describes how the process ended, for error messages.
func (p *Process) ExitStatus() string {
	var ee *exec.ExitError
	if errors.As(p.waitErr, &ee) {
		return ExitText(ee.ProcessState)
	}
	if p.waitErr != nil {
		return p.waitErr.Error()
	}
	return "exit status 0"
}

// ExitText describes how an ended process ended, for error messages.
func ExitText(st *os.ProcessState) string {
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return "killed by signal " + ws.Signal().String()
	}
	return fmt.Sprintf("exit status %d", st.ExitCode())
}

// Stop ends the server and everything it started, waiting at most
// stdinGrace+2*termGrace. It is safe to call more than once.
func (p *Process) Stop() { p.stopGraces(stdinGrace, termGrace) }

// StopWithin stops the server like Stop, in about d at most.
func (p *Process) StopWithin(d time.Duration) { p.stopGraces(d/3, d/3) }

func (p *Process) stopGraces(stdinGrace, termGrace time.Duration) {
	p.stopOnce.Do(func() {
		p.stdin.Close()
		if !WaitFor(p.done, stdinGrace) {
			p.tree.terminate()
			if !WaitFor(p.done, termGrace) {
				p.tree.kill()
				<-p.done
			}
		}
		// The leader is gone; what it started may not be.
		p.tree.release(termGrace)
		p.unguard()
		// Daemonized descendants left the group; as subreaper mcpc
		// inherited them. (Other servers still running are not orphans.)
		live.remove(p)
		stopOrphans()
	})
}

// live are the servers this process started and has not stopped yet.
var live = &liveSet{m: map[*Process]bool{}}

type liveSet struct {
	mu sync.Mutex
	m  map[*Process]bool
}

func (l *liveSet) remove(p *Process) {
	l.mu.Lock()
	delete(l.m, p)
	l.mu.Unlock()
}

// KillServers kills every stdio server still running, its whole process
// tree and whatever escaped it, at once and without grace: for a user who
// interrupted twice and will not wait for a polite teardown.
func KillServers() {
	live.mu.Lock()
	for p := range live.m {
		p.tree.kill()
	}
	live.mu.Unlock()
	killOrphans()
}

// WaitFor reports whether ch is closed within d.
func WaitFor(ch <-chan struct{}, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
		return true
	case <-t.C:
		return false
	}
}

// ProtocolError reports that a stdio server wrote something that is not a
// JSON-RPC message to its stdout.
type ProtocolError struct{ Line string }

func (e *ProtocolError) Error() string {
	return fmt.Sprintf("the server wrote a line to stdout that is not JSON: %q", e.Line)
}

// lineChecker passes the server's stdout through line by line and stops at
// the first line that is not JSON, remembering it: the SDK's own error for
// that case does not say what the server wrote. Each line goes through
// frame (the wire's), which may hand the SDK a smaller one.
type lineChecker struct {
	r      *bufio.Reader
	c      io.Closer
	limit  int                 // bytes in a line, newline included
	frame  func([]byte) []byte // the wire's
	framed func(n int) bool    // whether a line of n bytes goes through frame
	over   func(error)         // told of a line over a limit
	bound  func(int64) int64   // the tap's limit: a Bound in force lowers limit
	record func([]byte)        // sees each line as read, before frame (Tap.Record); nil: none
	mu     sync.Mutex
	bad    *ProtocolError

	// drops, when set, says whether a line that is framed but cannot be
	// read (over the limit, too deep) is read to its end and dropped, and
	// given to dropped, in place of the end of the connection
	// (Tap.Unreadable).
	drops   func() bool
	dropped func(err error, id json.RawMessage)
}

// errDropped is a line that could not be read and was dropped (drop):
// the reader goes on to the next.
var errDropped = errors.New("a message that could not be read was dropped")

// next returns the next line that is not blank, without its newline and
// surrounding space, after the wire's frame. A short line is the reader's
// buffer, valid until the next call: most lines of a flood are dropped
// unread (Wire.Skip), and decoding copies what it keeps.
func (l *lineChecker) next() ([]byte, error) {
	for {
		line, err := l.readLine()
		if err == errDropped {
			continue
		}
		if t := bytes.TrimSpace(line); len(t) > 0 {
			if l.record != nil {
				l.record(t)
			}
			if l.frame != nil && l.framed(len(t)) {
				// The wire may keep the message and hand the SDK a
				// stub; it is shown only valid JSON.
				if !json.Valid(t) {
					if err := l.notJSON(t); err != errDropped {
						return nil, err
					}
					continue
				}
				if len(t) <= l.r.Size() {
					t = bytes.Clone(t) // the wire may keep it; the buffer is reused
				}
				t = l.frame(t)
			}
			return t, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// decode decodes a line into its message, or a batch's messages. A line
// that is not JSON at all is remembered as the server's protocol error.
func (l *lineChecker) decode(line []byte) ([]jsonrpc.Message, error) {
	// line may be the reader's buffer (see next), yet is not copied: both
	// decoders copy what they keep (a json.RawMessage's UnmarshalJSON
	// copies; the SDK's decoder reads through a buffer of its own).
	if line[0] == '[' {
		var raws []json.RawMessage
		if err := json.Unmarshal(line, &raws); err != nil {
			return nil, l.notJSON(line)
		}
		if len(raws) == 0 {
			return nil, errors.New("the server sent an empty JSON-RPC batch")
		}
		msgs := make([]jsonrpc.Message, 0, len(raws))
		for _, raw := range raws {
			m, err := DecodeMessage(raw)
			if err != nil {
				return nil, err
			}
			msgs = append(msgs, m)
		}
		return msgs, nil
	}
	m, err := DecodeMessage(line)
	if err != nil {
		if !json.Valid(line) {
			return nil, l.notJSON(line)
		}
		return nil, err
	}
	return []jsonrpc.Message{m}, nil
}

// notJSON is the error for a line that is not JSON: too deep to be read,
// or what the server wrote, kept for the explanation.
func (l *lineChecker) notJSON(t []byte) error {
	if tooDeep(t) {
		if l.drops != nil && l.drops() {
			var id rawmsg.IDScanner
			id.Write(t)
			l.dropped(ErrTooDeep, id.ID())
			return errDropped
		}
		l.tell(ErrTooDeep)
		return ErrTooDeep
	}
	show := string(t[:min(len(t), 200)])
	if len(t) > 200 {
		show += "…"
	}
	l.mu.Lock()
	l.bad = &ProtocolError{Line: show}
	l.mu.Unlock()
	return l.bad
}

// readLine returns the next line: in the reader's buffer when it fits
// there, else in a buffer of its own.
func (l *lineChecker) readLine() ([]byte, error) {
	limit := l.limit
	if l.bound != nil {
		limit = int(l.bound(int64(limit)-1)) + 1
	}
	chunk, err := l.r.ReadSlice('\n')
	if err != bufio.ErrBufferFull {
		if len(chunk) > limit {
			return nil, l.tooLarge(nil, chunk, err)
		}
		return chunk, err
	}
	var line blockbuf.Buf
	for {
		if line.Len()+len(chunk) > limit {
			return nil, l.tooLarge(&line, chunk, err)
		}
		line.Write(chunk)
		if err != bufio.ErrBufferFull {
			return line.Bytes(), err
		}
		chunk, err = l.r.ReadSlice('\n')
	}
}

// tooLarge is the error for a line over the limit, of which read (nil:
// nothing) and chunk were read, and err the last read's: ErrTooLarge, or
// when drops, errDropped once the rest of the line is read and dropped
// (its id found on the way); ErrUnframed when the rest goes on past
// UnframedSpan times the limit.
func (l *lineChecker) tooLarge(read *blockbuf.Buf, chunk []byte, err error) error {
	if l.drops == nil || !l.drops() {
		l.tell(ErrTooLarge)
		return ErrTooLarge
	}
	var id rawmsg.IDScanner
	if read != nil {
		read.WriteTo(&id)
		read.Reset() // what is left of the line is not kept
	}
	span := int64(l.limit) * UnframedSpan
	for n := int64(len(chunk)); err == bufio.ErrBufferFull; n += int64(len(chunk)) {
		if n > span {
			l.tell(ErrUnframed)
			return ErrUnframed
		}
		id.Write(chunk)
		chunk, err = l.r.ReadSlice('\n')
	}
	id.Write(chunk)
	if err != nil {
		return err // the stream ended within the line
	}
	l.dropped(ErrTooLarge, id.ID())
	return errDropped
}

func (l *lineChecker) tell(err error) {
	if l.over != nil {
		l.over(err)
	}
}

func (l *lineChecker) Close() error { return l.c.Close() }

func (l *lineChecker) protocolError() *ProtocolError {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.bad
}

// lineWriter forwards server stderr and keeps its last lines so that an
// error message can show why a server died even when stderr was hidden.
type lineWriter struct {
	out  io.Writer
	tail *tailBuffer
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.tail.Write(p)
	w.out.Write(p) // a failing stderr must not break the server
	return len(p), nil
}

type tailBuffer struct {
	mu    sync.Mutex
	max   int
	lines []string
	part  string
}

func (t *tailBuffer) Write(p []byte) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.part + string(p)
	parts := strings.Split(s, "\n")
	t.part = parts[len(parts)-1]
	if len(t.part) > 1000 {
		t.part = t.part[:1000]
	}
	for _, l := range parts[:len(parts)-1] {
		if len(l) > 1000 {
			l = l[:1000] + "…"
		}
		t.lines = append(t.lines, l)
	}
	if len(t.lines) > t.max {
		t.lines = t.lines[len(t.lines)-t.max:]
	}
}

// Lines returns the last lines written, oldest first.
func (t *tailBuffer) Lines() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := append([]string(nil), t.lines...)
	if t.part != "" {
		out = append(out, t.part)
	}
	return out
}

// watchWriter notices the cancellation notification on its way out.
type watchWriter struct {
	w    io.WriteCloser
	seen chan struct{}
	once sync.Once
}

var cancelMethod = []byte(`"notifications/cancelled"`)

func (w *watchWriter) Write(p []byte) (int, error) {
	n, err := w.w.Write(p)
	if err == nil && bytes.Contains(p, cancelMethod) {
		w.once.Do(func() { close(w.seen) })
	}
	return n, err
}

func (w *watchWriter) Close() error { return w.w.Close() }
