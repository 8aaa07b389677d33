package transport

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// RecordEntry is one line of a recording (mcpc help record) as a reader
// of it takes it: the message it holds, if any, and where it was.
type RecordEntry struct {
	Line    int             // its line in the file, from 1
	Conn    int             // the connection's number
	Dir     string          // "out" (to the server), "in", or "" (a connection, a note)
	Local   bool            // answered by mcpc itself (the era memo)
	Msg     json.RawMessage // the message, or nil (an HTTP head, text, a note)
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
	l *lineChecker
	n int // the line last read
}

// NewRecordReader reads the recording's first line, which names the
// format: one that is not a recording, or of a version this reader does
// not know, is an error naming the line.
func NewRecordReader(r io.Reader, limit int) (*RecordReader, error) {
	rr := &RecordReader{l: &lineChecker{r: bufio.NewReaderSize(r, 64<<10), c: io.NopCloser(nil), limit: limit + recordSlack + 1}}
	line, err := rr.line()
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

// line is the next line that is not blank, in the reader's buffer.
func (rr *RecordReader) line() ([]byte, error) {
	for {
		line, err := rr.l.readLine()
		rr.n++
		if errors.Is(err, ErrTooLarge) {
			return nil, fmt.Errorf("line %d is longer than the --max-message it is read under", rr.n)
		}
		if t := bytes.TrimSpace(line); len(t) > 0 {
			return t, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// Next is the next line; io.EOF at the end.
func (rr *RecordReader) Next() (*RecordEntry, error) {
	line, err := rr.line()
	if err != nil {
		return nil, err
	}
	var l struct {
		Conn    *int            `json:"conn"`
		Dir     string          `json:"dir"`
		Local   bool            `json:"local"`
		Msg     json.RawMessage `json:"msg"`
		Omitted *RecordOmitted  `json:"omitted"`
	}
	if deeper(line, MaxDepth) {
		return nil, fmt.Errorf("line %d nests JSON more than %d levels deep", rr.n, MaxDepth)
	}
	if err := json.Unmarshal(line, &l); err != nil {
		return nil, fmt.Errorf("line %d is not a recording's line: %v", rr.n, jsonErr(err))
	}
	if l.Conn == nil {
		return nil, fmt.Errorf(`line %d is not a recording's line: it has no "conn"`, rr.n)
	}
	if l.Dir != "" && l.Dir != "in" && l.Dir != "out" {
		return nil, fmt.Errorf(`line %d: "dir" is %q, not "in" or "out"`, rr.n, l.Dir)
	}
	// l.Msg is a copy (json.RawMessage's decoding copies): the line is
	// the reader's buffer.
	return &RecordEntry{Line: rr.n, Conn: *l.Conn, Dir: l.Dir, Local: l.Local, Msg: l.Msg, Omitted: l.Omitted}, nil
}

// jsonErr is err without the decoder's "json: " prefix.
func jsonErr(err error) string {
	return string(bytes.TrimPrefix([]byte(err.Error()), []byte("json: ")))
}
