// Package redact replaces, by value, the secrets an invocation sends (client
// secrets, assertions, tokens, DPoP proofs, bearer values from the
// environment) with "<redacted>" in what it prints: a server that quotes a
// request back (an error_description holding the form it was sent, a body
// quoted in an error, a --verbose trace) must not put them into a log.
//
// One Set per invocation collects the secrets where they are obtained or
// sent; one Writer, at the stderr boundary, applies it to everything
// printed there. Secrets shorter than MinLen are not registered: replacing
// every "abc" in a message would hide more than it protects, and a secret
// that short is no secret.
package redact

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/url"
	"slices"
	"strconv"
	"sync"
)

// Mark is what a secret is replaced with.
const Mark = "<redacted>"

// MinLen is the shortest secret registered, in bytes.
const MinLen = 8

// Set is the secrets of one invocation, each in every form it can be
// printed in. It is safe for concurrent use; a nil *Set holds nothing.
type Set struct {
	mu      sync.RWMutex
	forms   []string  // longest first: at one position the longest wins
	first   [256]bool // the first bytes of forms, to skip text quickly
	seen    map[string]bool
	printed []func(string) string
}

// NewSet is an empty Set. printed are the changes a message undergoes
// before it reaches the Writer (the command line's: textsafe.OneLine,
// which makes whitespace runs one space and strips controls): a secret
// that such a change alters is registered as changed too, or it would
// pass the Writer unrecognized.
func NewSet(printed ...func(string) string) *Set {
	return &Set{seen: map[string]bool{}, printed: printed}
}

// Add registers secrets; empty and short ones (under MinLen bytes) are
// ignored.
func (s *Set) Add(secrets ...string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, v := range secrets {
		if len(v) < MinLen {
			continue
		}
		all := forms(v)
		for _, p := range s.printed {
			if c := p(v); c != v {
				all = append(all, forms(c)...)
			}
		}
		for _, f := range all {
			if len(f) < MinLen || s.seen[f] {
				continue
			}
			s.seen[f] = true
			s.forms = append(s.forms, f)
			s.first[f[0]] = true
		}
	}
	slices.SortStableFunc(s.forms, func(a, b string) int { return len(b) - len(a) })
}

// forms are the ways v appears in printed text: as is; inside a JSON
// string (escaped for HTML, as json.Marshal does, and not); quoted as Go
// quotes (%q); and percent-encoded as in a form body (client_secret_post)
// or a URL path.
func forms(v string) []string {
	out := []string{v}
	if b, err := json.Marshal(v); err == nil {
		out = append(out, string(b[1:len(b)-1]))
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) == nil {
		b := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
		out = append(out, string(b[1:len(b)-1]))
	}
	q := strconv.Quote(v)
	return append(out, q[1:len(q)-1], url.QueryEscape(v), url.PathEscape(v))
}

// empty reports whether nothing is registered.
func (s *Set) empty() bool {
	if s == nil {
		return true
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.forms) == 0
}

// String returns text with every registered secret replaced by Mark: for
// text about to be cut (a bounded description), where a cut secret could
// no longer be recognized.
func (s *Set) String(text string) string {
	if s.empty() {
		return text
	}
	out, _ := s.scan(nil, []byte(text), true)
	return string(out)
}

// Append appends p to dst with every registered secret replaced by Mark:
// String for bytes (a recorded message), without a copy when nothing is
// registered.
func (s *Set) Append(dst, p []byte) []byte {
	if s.empty() {
		return append(dst, p...)
	}
	out, _ := s.scan(dst, p, true)
	return out
}

// scan appends p to dst with every secret replaced by Mark, scanning from
// the left and taking at each position the longest secret that starts
// there (what strings.NewReplacer does with the forms longest first). Not
// final, it stops where p ends inside what could still become a secret,
// and returns how much of p it took: the rest must wait for more text.
func (s *Set) scan(dst, p []byte, final bool) ([]byte, int) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	start := 0
	for i := 0; i < len(p); {
		if !s.first[p[i]] {
			i++
			continue
		}
		rest := p[i:]
		match := 0
		for _, f := range s.forms {
			if len(rest) >= len(f) {
				if string(rest[:len(f)]) == f {
					match = len(f)
					break
				}
			} else if !final && f[:len(rest)] == string(rest) {
				// A longer secret may start here: undecided until more
				// text comes (or the end).
				return append(dst, p[start:i]...), i
			}
		}
		if match == 0 {
			i++
			continue
		}
		dst = append(append(dst, p[start:i]...), Mark...)
		i += match
		start = i
	}
	return append(dst, p[start:]...), len(p)
}

type ctxKey struct{}

// NewContext returns ctx carrying s: the invocation's Set, for the code
// that obtains or sends secrets deep below the command line.
func NewContext(ctx context.Context, s *Set) context.Context {
	return context.WithValue(ctx, ctxKey{}, s)
}

// FromContext is the Set ctx carries, or nil.
func FromContext(ctx context.Context) *Set {
	s, _ := ctx.Value(ctxKey{}).(*Set)
	return s
}

// Add registers secrets in the Set ctx carries, if any.
func Add(ctx context.Context, secrets ...string) { FromContext(ctx).Add(secrets...) }

// Writer writes to an underlying writer with every secret of its Set
// replaced. A secret split across writes is still caught: the end of a
// write that could begin one is held back (never more than the longest
// secret's length) until the next write or Flush. It is safe for
// concurrent use, and keeps the order of what is written.
type Writer struct {
	mu      sync.Mutex
	w       io.Writer
	set     *Set
	pending []byte
	out     []byte
}

// NewWriter is a Writer to w that redacts the secrets of set.
func NewWriter(w io.Writer, set *Set) *Writer { return &Writer{w: w, set: set} }

func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.pending) == 0 && w.set.empty() {
		return w.w.Write(p)
	}
	w.pending = append(w.pending, p...)
	return len(p), w.emit(false)
}

// Flush writes what is held back: at the end, a partial secret is text.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.pending) == 0 {
		return nil
	}
	return w.emit(true)
}

// Close flushes what is held back, then closes the underlying writer
// when it is an io.Closer (a file that a server's stderr goes to).
func (w *Writer) Close() error {
	err := w.Flush()
	if c, ok := w.w.(io.Closer); ok {
		err = errors.Join(err, c.Close())
	}
	return err
}

// Unwrap is the underlying writer (termui.IsTerminal looks through it).
func (w *Writer) Unwrap() io.Writer { return w.w }

func (w *Writer) emit(final bool) error {
	out, n := w.set.scan(w.out[:0], w.pending, final)
	w.pending = append(w.pending[:0], w.pending[n:]...)
	w.out = out[:0]
	if len(out) == 0 {
		return nil
	}
	_, err := w.w.Write(out)
	return err
}
