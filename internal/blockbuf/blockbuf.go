// Package blockbuf gathers bytes in blocks: a buffer grown by append
// copies a large message several times as it grows and, at the last
// growth, holds it about twice (the old array and the new one), which
// the collector's goal — and the peak RSS — then doubles again. Blocks are
// never copied; they are joined once, or written out one after the other.
package blockbuf

import (
	"io"
	"runtime"
)

// maxBlock is the largest block: a block is as large as what the buffer
// holds already (so a small message takes one small block), up to this.
const maxBlock = 1 << 20

// Buf is a byte buffer made of blocks. The zero value is empty and ready.
type Buf struct {
	blocks [][]byte
	cur    []byte
	n      int
}

// Write appends p; it never fails.
func (b *Buf) Write(p []byte) (int, error) { return write(b, p), nil }

// WriteString appends s; it never fails.
func (b *Buf) WriteString(s string) (int, error) { return write(b, s), nil }

func write[T string | []byte](b *Buf, p T) int {
	n := len(p)
	for len(p) > 0 {
		if len(b.cur) == cap(b.cur) {
			if b.cur != nil {
				b.blocks = append(b.blocks, b.cur)
			}
			b.cur = make([]byte, 0, min(max(4<<10, b.n), maxBlock))
		}
		k := min(len(p), cap(b.cur)-len(b.cur))
		b.cur = append(b.cur, p[:k]...)
		p = p[k:]
		b.n += k
	}
	return n
}

// WriteByte appends c; it never fails.
func (b *Buf) WriteByte(c byte) error {
	if len(b.cur) < cap(b.cur) {
		b.cur = append(b.cur, c)
		b.n++
		return nil
	}
	_, err := b.Write([]byte{c})
	return err
}

// Len is the number of bytes written.
func (b *Buf) Len() int { return b.n }

// Reset empties b for reuse, keeping its one block (a buffer that took
// more has its blocks dropped: they may be large).
func (b *Buf) Reset() {
	if len(b.blocks) > 0 {
		*b = Buf{}
		return
	}
	b.cur, b.n = b.cur[:0], 0
}

// Bytes returns everything written. Held in one block, that block is
// returned and b keeps it; else the blocks are joined into a buffer of the
// exact size, each let go once copied (so the collector may take it back
// before the join ends), and b is left empty. What Bytes returns is the
// caller's only until b is written to again: a Reset keeps a single block
// for reuse, so a caller that writes to b after Bytes must copy first.
func (b *Buf) Bytes() []byte {
	if len(b.blocks) == 0 {
		return b.cur
	}
	out := make([]byte, 0, b.n)
	for i, blk := range b.blocks {
		out = append(out, blk...)
		b.blocks[i] = nil
	}
	out = append(out, b.cur...)
	*b = Buf{}
	Release(len(out))
	return out
}

// Release tells the collector that buffers of n bytes in all were just
// let go (a large message's blocks once joined, list pages once joined
// into one): from collectAbove they are collected at once. Left to the
// collector's pacing, its goal (twice the live heap) is set while they
// and what replaced them are both live: a 30 MB message read line by line
// took the heap to 104 MB before they were taken back. Collected here,
// the goal follows what is kept; a collection of a heap of that shape
// (bytes, no pointers to follow) takes a millisecond or two.
func Release(n int) {
	if n >= collectAbove {
		runtime.GC()
	}
}

// collectAbove is the size from which Release collects.
const collectAbove = 4 << 20

// WriteTo writes everything written to w, block by block, and leaves b as
// it was (it may be written out again).
func (b *Buf) WriteTo(w io.Writer) (int64, error) {
	var n int64
	for i := 0; i <= len(b.blocks); i++ {
		blk := b.cur
		if i < len(b.blocks) {
			blk = b.blocks[i]
		}
		k, err := w.Write(blk)
		n += int64(k)
		if err != nil {
			return n, err
		}
	}
	return n, nil
}
