package format

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpc-dev/mcpc/internal/fsx"
)

// DefaultOverflowCap is the total size an overflow directory is pruned to.
const DefaultOverflowCap = 50 << 20

// freshFor protects a new overflow file from pruning by other invocations:
// its writer has printed the path and the user is about to open it.
const freshFor = 10 * time.Minute

// ErrTooLarge is returned by Save for data larger than the whole cap.
var ErrTooLarge = errors.New("larger than the overflow directory's cap")

// ownName matches the names Save gives files (prefix-TIME-RANDOM.suffix):
// pruning deletes those and nothing else. It is compiled on first use: only
// an invocation that saves a file prunes.
var ownName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[a-z]+-[0-9]{8}T[0-9]{6}-[0-9]+(\.[a-z0-9]+)?$`)
})

// Overflow is a private directory for what does not fit on stdout: full results
// and extracted media. Results can hold anything a server returns, so the
// directory and its files are readable by their owner only, and its size is
// capped because nothing else ever cleans it up.
type Overflow struct {
	Dir      string
	CapBytes int64 // total size kept; <= 0 means DefaultOverflowCap

	saved map[string]bool // names this invocation wrote: never pruned by it
	// writeVia, when set, stands between the file and what is written to
	// it: tests make a disk that fills up with it.
	writeVia func(io.Writer) io.Writer
}

func (o *Overflow) limit() int64 {
	if o.CapBytes <= 0 {
		return DefaultOverflowCap
	}
	return o.CapBytes
}

// Save writes data to a new file named prefix-TIME-RANDOM+suffix in o.Dir (the
// directory is created 0700 if needed, the file 0600, never through a
// symlink), then removes the oldest files mcpc wrote there until the
// directory holds at most CapBytes: never a file this invocation wrote, nor
// one younger than freshFor that another invocation may have just printed.
// It returns the new file's path.
func (o *Overflow) Save(prefix, suffix string, data []byte) (string, error) {
	if int64(len(data)) > o.limit() {
		return "", ErrTooLarge
	}
	return o.SaveStream(prefix, suffix, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// SaveStream is Save for data that write produces, so that it need not be
// held in memory whole. write always runs to the end; if it writes more
// than the cap, the file is removed and SaveStream returns ErrTooLarge.
func (o *Overflow) SaveStream(prefix, suffix string, write func(io.Writer) error) (string, error) {
	if err := overflowDir(o.Dir); err != nil {
		return "", err
	}
	// The timestamp makes names sort by age for a person listing the
	// directory; CreateTemp's random part keeps concurrent invocations apart
	// and opens with O_EXCL and mode 0600.
	pattern := prefix + "-" + time.Now().UTC().Format("20060102T150405") + "-*" + suffix
	f, err := os.CreateTemp(o.Dir, pattern)
	if err != nil {
		return "", err
	}
	path := f.Name()
	var fw io.Writer = f
	if o.writeVia != nil {
		fw = o.writeVia(f)
	}
	cw := &capWriter{w: bufio.NewWriterSize(fw, 64<<10), left: o.limit()}
	err = write(cw)
	if err == nil && cw.err != nil {
		err = cw.err
	}
	if err == nil && !cw.over {
		err = cw.w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && cw.over {
		err = ErrTooLarge
	}
	if err != nil {
		os.Remove(path)
		return "", err
	}
	if o.saved == nil {
		o.saved = map[string]bool{}
	}
	o.saved[filepath.Base(path)] = true
	// The result is safely written and the caller needs its path; a prune
	// that fails (say, a file another user owns) only leaves the directory
	// over its cap until a later Save succeeds, so it is not an error here.
	_ = o.prune()
	return path, nil
}

// unsavedBecause says, for a note, why Save or SaveStream wrote no file:
// over the cap, or the directory or disk refused it (full, a file size
// limit, no permission). The file itself is gone by then, so the reason
// names the directory, not the file.
func (o *Overflow) unsavedBecause(err error) string {
	if errors.Is(err, ErrTooLarge) {
		return "larger than the overflow cap"
	}
	return "cannot write to the overflow directory " + o.Dir + ": " + fsx.Reason(err).Error()
}

// capWriter writes up to left bytes and then only notes that there was
// more: the cap holds for every file, and the caller still counts all.
type capWriter struct {
	w    *bufio.Writer
	left int64
	over bool
	err  error
}

func (c *capWriter) Write(p []byte) (int, error) {
	if c.over || c.err != nil {
		return len(p), nil
	}
	if int64(len(p)) > c.left {
		c.over = true
		return len(p), nil
	}
	c.left -= int64(len(p))
	_, c.err = c.w.Write(p)
	return len(p), nil
}

// overflowDir is fsx.PrivateDir (a real directory, not a symlink that
// could point pruning at someone else's files; the user's; private), its
// refusals naming the directory as the overflow directory.
func overflowDir(dir string) error {
	err := fsx.PrivateDir(dir)
	var pe *fs.PathError
	if err == nil || errors.As(err, &pe) {
		return err // a failed mkdir or lstat names its path and operation
	}
	return fmt.Errorf("overflow directory %w", err)
}

// prune deletes the oldest files mcpc wrote in o.Dir until the total size is
// within the cap. Files that vanish meanwhile (another mcpc pruning at the
// same time) are not an error.
func (o *Overflow) prune() error {
	entries, err := os.ReadDir(o.Dir)
	if err != nil {
		return err
	}
	type file struct {
		name string
		size int64
		mod  time.Time
	}
	var files []file
	var total int64
	now := time.Now()
	for _, e := range entries {
		if !e.Type().IsRegular() || !ownName().MatchString(e.Name()) {
			continue
		}
		info, err := e.Info()
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			return err
		}
		total += info.Size()
		if !o.saved[e.Name()] && now.Sub(info.ModTime()) >= freshFor {
			files = append(files, file{e.Name(), info.Size(), info.ModTime()})
		}
	}
	slices.SortFunc(files, func(a, b file) int {
		if c := a.mod.Compare(b.mod); c != 0 {
			return c
		}
		return strings.Compare(a.name, b.name)
	})
	for _, f := range files {
		if total <= o.limit() {
			break
		}
		err := os.Remove(filepath.Join(o.Dir, f.name))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		total -= f.size
	}
	return nil
}
