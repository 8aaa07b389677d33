package transport

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode"

	segjson "github.com/segmentio/encoding/json"
	"github.com/tidwall/gjson"

	"github.com/mcpc-dev/mcpc/internal/rawmsg"
)

// RecordEntry is one line of a recording (mcpc help record) as a reader
// of it takes it: the message it holds, if any, and where it was.
type RecordEntry struct {
	Line    int             // its line in the file, from 1
	Conn    int             // the connection's number
	Dir     string          // "out" (to the server), "in", or "" (a connection, a note)
	Local   bool            // answered by mcpc itself (the era memo)
	Msg     json.RawMessage // the message, or nil (an HTTP head, text, a note)
	MsgAt   int64           // where Msg lies in the file
	Omitted *RecordOmitted  // a message over --max-message, left out
}

// RecordOmitted is what a recording keeps of a message it left out.
type RecordOmitted struct {
	Bytes  int             `json:"bytes"`
	Method string          `json:"method,omitempty"`
	ID     json.RawMessage `json:"id,omitempty"`
}

// recordSlack is room in a recording's line around its message: the
// time, the connection, an HTTP head's URL and headers.
const recordSlack = 64 << 10

// RecordReader reads a recording line by line, each bounded: a message
// at most the limit it was made with, its line at most that and
// recordSlack, so a file that is no recording (one endless line) costs
// no more than one line's bound.
type RecordReader struct {
	l      *lineChecker
	n      int   // the line last read
	off    int64 // the offset of the next line
	e      RecordEntry
	m      recMembers
	member func(k, v gjson.Result) bool // takes a member of the line into m
}

// recMembers are the members of a line a reader looks at.
type recMembers struct {
	conn, dir, msg, omitted gjson.Result
	local                   bool
}

func (rr *RecordReader) take(k, v gjson.Result) bool {
	switch k.Str {
	case "conn":
		rr.m.conn = v
	case "dir":
		rr.m.dir = v
	case "local":
		rr.m.local = v.Type == gjson.True
	case "msg":
		rr.m.msg = v
	case "omitted":
		rr.m.omitted = v
	}
	return true
}

// NewRecordReader reads the recording's first line, which names the
// format: one that is not a recording, or of a version this reader does
// not know, is an error naming the line.
func NewRecordReader(r io.Reader, limit int) (*RecordReader, error) {
	rr := &RecordReader{l: &lineChecker{r: bufio.NewReaderSize(r, 64<<10), c: io.NopCloser(nil), limit: limit + recordSlack + 1}}
	rr.member = rr.take
	line, _, err := rr.line()
	if err == io.EOF {
		return nil, errors.New("the file is empty, not a recording")
	}
	if err != nil {
		return nil, err
	}
	var head struct {
		Version *int `json:"mcpc-record"`
	}
	if json.Unmarshal(line, &head) != nil || head.Version == nil {
		return nil, fmt.Errorf(`line 1 does not name the format ({"mcpc-record":%d,…}): the file is not a recording`, RecordVersion)
	}
	if *head.Version != RecordVersion {
		return nil, fmt.Errorf("line 1: the recording's format is version %d; this mcpc reads version %d", *head.Version, RecordVersion)
	}
	return rr, nil
}

// line is the next line that is not blank, in the reader's buffer, and
// its offset in the file.
func (rr *RecordReader) line() ([]byte, int64, error) {
	for {
		line, err := rr.l.readLine()
		at := rr.off
		rr.off += int64(len(line))
		rr.n++
		if errors.Is(err, ErrTooLarge) {
			return nil, 0, fmt.Errorf("line %d is longer than the --max-message it is read under", rr.n)
		}
		left := bytes.TrimLeftFunc(line, unicode.IsSpace)
		if t := bytes.TrimRightFunc(left, unicode.IsSpace); len(t) > 0 {
			return t, at + int64(len(line)-len(left)), nil
		}
		if err != nil {
			return nil, 0, err
		}
	}
}

// Next is the next line; io.EOF at the end. The entry, and its Msg (the
// reader's buffer), are valid until the next call.
func (rr *RecordReader) Next() (*RecordEntry, error) {
	line, at, err := rr.line()
	if err != nil {
		return nil, err
	}
	if deeper(line, MaxDepth) {
		return nil, fmt.Errorf("line %d nests JSON more than %d levels deep", rr.n, MaxDepth)
	}
	if line[0] != '{' || !segjson.Valid(line) {
		// Decoded only to say where the text goes wrong.
		var skip map[string]any
		err := json.Unmarshal(line, &skip)
		if err == nil {
			err = errors.New("it is not a JSON object")
		}
		return nil, fmt.Errorf("line %d is not a recording's line: %v", rr.n, jsonErr(err))
	}
	// One pass over the line's top level; the results point into it.
	// The entry and the members are the reader's, reused line to line:
	// the pass costs no allocation.
	rr.e, rr.m = RecordEntry{Line: rr.n}, recMembers{}
	e, lm := &rr.e, &rr.m
	rawmsg.View(line).ForEach(rr.member)
	conn, dir, omitted := lm.conn, lm.dir, lm.omitted
	if lm.local {
		e.Local = true
	}
	if m := lm.msg; m.Exists() {
		if e.Msg = rawmsg.Within(line, m); e.Msg != nil {
			e.MsgAt = at + int64(m.Index)
		}
	}
	if conn.Type != gjson.Number {
		return nil, fmt.Errorf(`line %d is not a recording's line: it has no "conn"`, rr.n)
	}
	e.Conn = int(conn.Int())
	switch dir.Str {
	case "", "in", "out":
		e.Dir = dir.Str
	default:
		return nil, fmt.Errorf(`line %d: "dir" is %q, not "in" or "out"`, rr.n, dir.Str)
	}
	if omitted.IsObject() {
		e.Omitted = new(RecordOmitted)
		json.Unmarshal([]byte(omitted.Raw), e.Omitted)
	}
	return e, nil
}

// jsonErr is err without the decoder's "json: " prefix.
func jsonErr(err error) string {
	return string(bytes.TrimPrefix([]byte(err.Error()), []byte("json: ")))
}
