package format

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// DefaultOverflowCap is the total size an overflow directory is pruned to.
const DefaultOverflowCap = 50 << 20

// Overflow is a private directory for what does not fit on stdout: full results
// and extracted media. Results can hold anything a server returns, so the
// directory and its files are readable by their owner only, and its size is
// capped because nothing else ever cleans it up.
type Overflow struct {
	Dir      string
	CapBytes int64 // total size kept; <= 0 means DefaultOverflowCap
}

// Save writes data to a new file named prefix-TIME-RANDOM+suffix in o.Dir (the
// directory is created 0700 if needed, the file 0600), then removes the oldest
// files until the directory holds at most CapBytes, never the file just
// written. It returns the new file's path.
func (o *Overflow) Save(prefix, suffix string, data []byte) (string, error) {
	if err := os.MkdirAll(o.Dir, 0o700); err != nil {
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
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return "", err
	}
	// The result is safely written and the caller needs its path; a prune
	// that fails (say, a file another user owns) only leaves the directory
	// over its cap until a later Save succeeds, so it is not an error here.
	_ = o.prune(path)
	return path, nil
}

// prune deletes the oldest regular files of o.Dir, other than keep, until the
// total size is within the cap. Files that vanish meanwhile (another mcpc
// pruning at the same time) are not an error.
func (o *Overflow) prune(keep string) error {
	limit := o.CapBytes
	if limit <= 0 {
		limit = DefaultOverflowCap
	}
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
	keepName := filepath.Base(keep)
	for _, e := range entries {
		if !e.Type().IsRegular() {
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
		if e.Name() != keepName {
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
		if total <= limit {
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
