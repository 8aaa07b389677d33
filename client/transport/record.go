package transport

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/mcpc-dev/mcpc/internal/fsx"
	"github.com/mcpc-dev/mcpc/internal/rawmsg"
	"github.com/mcpc-dev/mcpc/internal/redact"
	"github.com/mcpc-dev/mcpc/internal/units"
	"github.com/mcpc-dev/mcpc/internal/urlx"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// RecordVersion is the version of the recording format (mcpc help
// record), the value of "mcpc-record" on a recording's first line. A
// change a reader of version 1 would misread is a new version.
const RecordVersion = 1

// DefaultRecordMax is the size a recording file grows to at most
// (--record-max): past it a note line says so and nothing more is
// written, so a chatty server cannot fill the disk.
const DefaultRecordMax = 256 << 20

// noteRoom is kept free under the cap for the note that the cap was
// reached.
const noteRoom = 512

// RecordOptions say how a recording is written.
type RecordOptions struct {
	// Secrets are the invocation's: every one is "<redacted>" in every
	// line, in each form it can take (redact.Set).
	Secrets *redact.Set
	// MaxMessage bounds one message recorded (--max-message); a larger
	// one is a line saying its size, method and id. 0: DefaultMaxMessage.
	MaxMessage int64
	// MaxFile bounds the file (--record-max); 0: DefaultRecordMax.
	MaxFile int64
	// Client is mcpc's name and version, on the first line.
	Client string
	// Now is the clock of the lines' times; nil: time.Now.
	Now func() time.Time
}

// Recorder writes every JSON-RPC message of an invocation's connections
// as JSON Lines (--record FILE, a session's "record"). It sits in the
// tap (Tap.Record): stdio, a session's socket, Streamable HTTP and
// HTTP+SSE show it each message as it passes, raw, with the HTTP status
// and headers that matter. The file is private (0600) and replaces FILE
// atomically when the recorder is closed. It is safe for concurrent use.
type Recorder struct {
	mu      sync.Mutex
	enc     bytes.Buffer // a line being encoded
	file    *fsx.Pending
	w       *bufio.Writer
	o       RecordOptions
	written int64
	conns   int
	stopped bool // closed, or the cap reached
	buf     []byte
}

// recHead is a recording's first line.
type recHead struct {
	Version int    `json:"mcpc-record"`
	Client  string `json:"mcpc"`
	Started string `json:"started"`
}

// recLine is every other line: a connection opened (server), a message
// (msg, or text when it is not JSON, or omitted when over the bound), an
// HTTP exchange's head (http), or a note.
type recLine struct {
	T         string          `json:"t"`
	Conn      int             `json:"conn"`
	Server    string          `json:"server,omitempty"`
	Dir       string          `json:"dir,omitempty"`
	Transport string          `json:"transport,omitempty"`
	Local     bool            `json:"local,omitempty"`
	HTTP      *recHTTP        `json:"http,omitempty"`
	Event     string          `json:"event,omitempty"`
	EventID   *string         `json:"eventId,omitempty"`
	Msg       json.RawMessage `json:"msg,omitempty"`
	Text      *string         `json:"text,omitempty"`
	Omitted   *recOmitted     `json:"omitted,omitempty"`
	Note      string          `json:"note,omitempty"`
}

type recHTTP struct {
	Method  string            `json:"method,omitempty"`
	URL     string            `json:"url,omitempty"`
	Status  int               `json:"status,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
}

// recOmitted stands for a message over the bound: what a reader needs to
// pair it with its answer.
type recOmitted struct {
	Bytes  int             `json:"bytes"`
	Method string          `json:"method,omitempty"`
	ID     json.RawMessage `json:"id,omitempty"`
}

// CreateRecorder starts a recording that will replace path: a directory
// that is missing or not writable fails here, before any server starts.
func CreateRecorder(path string, o RecordOptions) (*Recorder, error) {
	if o.MaxMessage <= 0 {
		o.MaxMessage = DefaultMaxMessage
	}
	if o.MaxFile <= 0 {
		o.MaxFile = DefaultRecordMax
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	f, err := fsx.CreatePending(path, 0o600, fsx.Follow)
	if err != nil {
		return nil, err
	}
	r := &Recorder{file: f, w: bufio.NewWriterSize(f, 64<<10), o: o}
	head, _ := r.encode(recHead{Version: RecordVersion, Client: o.Client, Started: r.now()})
	r.put(head)
	return r, nil
}

// encode is v as one line of JSON, HTML characters as they are (a
// message's "<" stays "<"). The bytes are valid until the next encode.
func (r *Recorder) encode(v any) ([]byte, error) {
	r.enc.Reset()
	e := json.NewEncoder(&r.enc)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(r.enc.Bytes(), []byte("\n")), nil
}

func (r *Recorder) now() string { return r.o.Now().UTC().Format(time.RFC3339Nano) }

// Close ends the recording and puts it in place of its path.
func (r *Recorder) Close() error {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.file == nil {
		return nil
	}
	r.stopped = true
	err := r.w.Flush()
	if err != nil {
		r.file.Abort()
	} else {
		err = r.file.Commit()
	}
	r.file = nil
	return err
}

// put writes one line; the caller holds mu (or is the constructor).
func (r *Recorder) put(line []byte) {
	r.w.Write(line)
	r.w.WriteByte('\n')
	r.written += int64(len(line)) + 1
}

// RecordConn is one connection's part of a recording: its lines carry
// its number, from 1 in the order the connections were opened.
type RecordConn struct {
	r *Recorder
	n int
}

// Conn opens the part of one connection, to the server named server,
// with a line saying so. A nil Recorder records nothing (a nil
// *RecordConn).
func (r *Recorder) Conn(server string) *RecordConn {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	r.conns++
	c := &RecordConn{r: r, n: r.conns}
	r.mu.Unlock()
	c.emit(&recLine{Server: server})
	return c
}

// message records a message that passed: data is its bytes as on the
// wire (a stdio line, an HTTP body, an event's data).
func (c *RecordConn) message(dir, transport string, data []byte) {
	c.emit(c.messageLine(dir, transport, data))
}

func (c *RecordConn) messageLine(dir, transport string, data []byte) *recLine {
	l := &recLine{Dir: dir, Transport: transport}
	data = bytes.TrimSpace(data)
	switch {
	case int64(len(data)) > c.r.o.MaxMessage:
		om := &recOmitted{Bytes: len(data)}
		if json.Valid(data) {
			m := rawmsg.Parse(data)
			om.Method, om.ID = m.Method.String(), json.RawMessage(m.ID.Raw)
		}
		l.Omitted = om
	case json.Valid(data):
		l.Msg = data
	default:
		s := string(data)
		l.Text = &s
	}
	return l
}

// local records a request the wire answered itself and its answer
// (server/discover from the era memo): marked local, since neither
// crossed the wire.
func (c *RecordConn) local(req jsonrpc.Message, resp *jsonrpc.Response) {
	for _, x := range []struct {
		dir string
		m   jsonrpc.Message
	}{{"out", req}, {"in", resp}} {
		data, err := jsonrpc.EncodeMessage(x.m)
		if err != nil {
			return
		}
		l := c.messageLine(x.dir, "", data)
		l.Local = true
		c.emit(l)
	}
}

// event records the message of an event on an HTTP stream, with the
// event's type when it is not "message" (HTTP+SSE's endpoint) and its id
// when it has one (what a reconnect resumes from).
func (c *RecordConn) event(transport string, ev Event, data []byte) {
	l := c.messageLine("in", transport, data)
	if n := ev.Name(); n != "message" {
		l.Event = n
	}
	if ev.hasID {
		id := string(ev.id)
		l.EventID = &id
	}
	c.emit(l)
}

// request records an HTTP request's head and the message its body
// carries (body nil: none).
func (c *RecordConn) request(transport string, req *http.Request, body []byte) {
	l := &recLine{Dir: "out", Transport: transport}
	if body != nil {
		l = c.messageLine("out", transport, body)
	}
	l.HTTP = &recHTTP{Method: req.Method, URL: urlx.Redact(req.URL.String()), Headers: recHeaders(req.Header)}
	c.emit(l)
}

// response records an HTTP answer's head; its messages follow as lines
// of their own (a JSON body's one, an event stream's each).
func (c *RecordConn) response(transport string, resp *http.Response) {
	c.emit(&recLine{Dir: "in", Transport: transport, HTTP: &recHTTP{Status: resp.StatusCode, Headers: recHeaders(resp.Header)}})
}

// note records what happened that is no message: a message refused over
// the bound.
func (c *RecordConn) note(format string, args ...any) {
	c.emit(&recLine{Note: fmt.Sprintf(format, args...)})
}

// recHeaders are the headers of an HTTP message a reader of the
// recording needs: the protocol's, the cache hints and a challenge.
// Authorization and cookies are there as "<redacted>" whole: that one
// was sent, never what it held.
func recHeaders(h http.Header) map[string]string {
	var out map[string]string
	for k, vs := range h {
		if len(vs) == 0 || !recordedHeader(k) {
			continue
		}
		if out == nil {
			out = map[string]string{}
		}
		v := vs[0]
		for _, more := range vs[1:] {
			v += ", " + more
		}
		switch k {
		case "Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie", "Dpop":
			v = redact.Mark
		}
		out[k] = v
	}
	return out
}

// recordedHeader says whether the header named k (canonical) is
// recorded.
func recordedHeader(k string) bool {
	switch k {
	case "Mcp-Session-Id", "Mcp-Protocol-Version", "Mcp-Method", "Mcp-Name", "Last-Event-Id",
		"Content-Type", "Cache-Control", "Etag", "Expires", "Age", "Last-Modified", "Retry-After",
		"Www-Authenticate", "Location",
		"Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie", "Dpop":
		return true
	}
	return false
}

// emit writes l with the time, the connection's number and every secret
// redacted. A redaction that made the message no longer JSON (a secret
// that is a number in it) records the message as text instead.
func (c *RecordConn) emit(l *recLine) {
	r := c.r
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stopped {
		return
	}
	l.T, l.Conn = r.now(), c.n
	line, err := r.encode(l)
	if err != nil {
		return
	}
	r.buf = r.o.Secrets.Append(r.buf[:0], line)
	if !bytes.Equal(r.buf, line) && !json.Valid(r.buf) && l.Msg != nil {
		s := string(l.Msg)
		l.Msg, l.Text = nil, &s
		if line, err = r.encode(l); err != nil {
			return
		}
		r.buf = r.o.Secrets.Append(r.buf[:0], line)
	}
	if r.written+int64(len(r.buf))+1 > r.o.MaxFile-noteRoom {
		r.stopped = true
		note, _ := r.encode(recLine{T: l.T, Conn: c.n, Note: "the recording reached its size cap of " +
			units.SizeText(r.o.MaxFile) + " (--record-max); nothing after this line was recorded"})
		r.put(note)
		return
	}
	r.put(r.buf)
}
