package blockbuf

import (
	"bytes"
	"strings"
	"testing"

	"github.com/mcpc-dev/mcpc/internal/memtest"
)

func TestBuf(t *testing.T) {
	var b Buf
	var want bytes.Buffer
	for i := range 3000 {
		s := strings.Repeat(string(rune('a'+i%26)), i)
		b.WriteString(s)
		b.Write([]byte(s))
		b.WriteByte('\n')
		want.WriteString(s + s + "\n")
	}
	if b.Len() != want.Len() {
		t.Fatalf("Len = %d, want %d", b.Len(), want.Len())
	}
	// WriteTo leaves the buffer as it was: the bounded printer writes a
	// text twice when it does not fit (measured, then to its overflow file).
	for range 2 {
		var out bytes.Buffer
		if n, err := b.WriteTo(&out); err != nil || n != int64(want.Len()) || !bytes.Equal(out.Bytes(), want.Bytes()) {
			t.Fatalf("WriteTo = %d, %v; the bytes differ: %v", n, err, !bytes.Equal(out.Bytes(), want.Bytes()))
		}
	}
	if got := b.Bytes(); !bytes.Equal(got, want.Bytes()) {
		t.Fatal("Bytes differ from what was written")
	}
	if b.Len() != 0 {
		t.Errorf("after Bytes of many blocks, Len = %d, want 0 (the blocks let go)", b.Len())
	}
	b.WriteString("small")
	if got := string(b.Bytes()); got != "small" {
		t.Errorf("Bytes = %q", got)
	}
	b.Reset()
	if b.Len() != 0 || len(b.Bytes()) != 0 {
		t.Error("Reset left bytes")
	}
}

// A large message costs its blocks and one joined copy, never the
// copies of a buffer grown by doubling (bytes.Buffer: about 3 times).
func TestBytesOfALargeMessage(t *testing.T) {
	chunk := bytes.Repeat([]byte("x"), 4096)
	const size = 16 << 20
	var got []byte
	n := memtest.Allocated(func() {
		var b Buf
		for b.Len() < size {
			b.Write(chunk)
		}
		got = b.Bytes()
	})
	if len(got) != size {
		t.Fatalf("Bytes gave %d bytes, want %d", len(got), size)
	}
	if limit := uint64(size)*2 + size/8; n > limit {
		t.Errorf("gathering and joining %d bytes allocated %d, want at most %d", size, n, limit)
	}
}
