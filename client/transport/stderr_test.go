package transport

import (
	"bytes"
	"runtime"
	"testing"
)

// Mark counts what the writer wrote before it is read: bytes waiting in
// the pipe count as much as bytes taken from it, and everything written
// reaches the copy, in order.
func TestStderrPipeMarkCountsWhatWaits(t *testing.T) {
	p, w, err := newStderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer p.f.Close()
	w.Write([]byte("written before anyone reads\n"))
	if runtime.GOOS != "windows" {
		if got := p.Mark(); got != 28 {
			t.Errorf("Mark before reading = %d, want 28", got)
		}
	}
	var out bytes.Buffer // read once done is closed
	go p.copyTo(&out)
	w.Write([]byte("and after\n"))
	if runtime.GOOS != "windows" {
		if got := p.Mark(); got != 38 {
			t.Errorf("Mark while reading = %d, want 38", got)
		}
	}
	w.Close()
	<-p.done
	if got := out.String(); got != "written before anyone reads\nand after\n" {
		t.Errorf("copied %q", got)
	}
	if got := p.Mark(); got != 38 {
		t.Errorf("Mark after EOF = %d, want 38", got)
	}
}
