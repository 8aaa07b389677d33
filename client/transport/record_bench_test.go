package transport

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"path/filepath"
	"testing"
)

// benchLines reads a flood of log messages through a stdio connection
// that drops them unread (Wire.Skip), as a chatty server's are: the path
// --record must leave as it was when it is off.
func benchLines(b *testing.B, rec *RecordConn) {
	line := []byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"debug","data":"message of the flood"}}` + "\n")
	const n = 1000
	data := bytes.Repeat(line, n)
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		in := &lineChecker{r: bufio.NewReaderSize(bytes.NewReader(data), 64<<10), c: io.NopCloser(nil), limit: DefaultMaxMessage + 1}
		if rec != nil {
			in.record = func(l []byte) { rec.message("in", "stdio", l) }
		}
		c := &stdioConn{t: &stdioTransport{in: in, skip: func([]byte) bool { return true }, rec: rec}}
		if _, err := c.Read(context.Background()); err != io.EOF {
			b.Fatal(err)
		}
	}
}

// BenchmarkStdioSkip is that flood without --record; BenchmarkStdioRecord
// with it (every line written to the recording).
func BenchmarkStdioSkip(b *testing.B) { benchLines(b, nil) }

func BenchmarkStdioRecord(b *testing.B) {
	r, err := CreateRecorder(filepath.Join(b.TempDir(), "r.jsonl"), RecordOptions{MaxFile: 1 << 40})
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	benchLines(b, r.Conn("bench"))
}
