package fsx

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// TooLargeError says a file is over the limit its reader set.
type TooLargeError struct{ Limit int64 }

func (e *TooLargeError) Error() string {
	if e.Limit%(1<<20) == 0 {
		return fmt.Sprintf("larger than the %d MiB limit", e.Limit>>20)
	}
	return fmt.Sprintf("larger than the %d-byte limit", e.Limit)
}

// NotRegularError says a path names something other than a regular file
// (a FIFO would block for ever, /dev/zero would never end).
type NotRegularError struct{ Kind string }

func (e *NotRegularError) Error() string { return "not a regular file (" + e.Kind + ")" }

// ReadFile reads a regular file of at most limit bytes. Anything else is
// refused before a byte is read or a buffer of the file's size allocated;
// the open itself cannot block on a FIFO. A symlink to a regular file is
// read. Errors are *fs.PathError naming path, wrapping *TooLargeError or
// *NotRegularError where that is why.
func ReadFile(path string, limit int64) ([]byte, error) {
	return readFile(path, limit, true)
}

// ReadFileNoFollow is ReadFile for a file of mcpc's own state, in a
// private directory where a symlink can only have been planted: a symlink
// is not followed but refused (*NotRegularError, "a symbolic link"), by the
// open itself, so it cannot be swapped in between a check and the read.
func ReadFileNoFollow(path string, limit int64) ([]byte, error) {
	return readFile(path, limit, false)
}

// OpenRegular opens a regular file to be read as a stream (a recording
// that may be large), refusing anything else as ReadFile does, before a
// byte is read.
func OpenRegular(path string) (*os.File, error) {
	f, _, err := openRegular(path, true)
	return f, err
}

func openRegular(path string, follow bool) (*os.File, fs.FileInfo, error) {
	f, err := openRead(path, follow)
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err == nil && !st.Mode().IsRegular() {
		err = &fs.PathError{Op: "read", Path: path, Err: &NotRegularError{Kind: FileKind(st.Mode())}}
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, st, nil
}

func readFile(path string, limit int64, follow bool) ([]byte, error) {
	f, st, err := openRegular(path, follow)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st.Size() > limit {
		return nil, &fs.PathError{Op: "read", Path: path, Err: &TooLargeError{Limit: limit}}
	}
	// The size can change under us (a growing log): read at most limit+1.
	// The buffer starts at the size Stat gave, at most limit (checked
	// above), so a large file is read in one allocation (a cached
	// tools/list is read before every warm call), and grows with what is
	// read if the file grew.
	data := make([]byte, 0, st.Size()+1)
	r := io.LimitReader(f, limit+1)
	for {
		n, err := r.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
	}
	if int64(len(data)) > limit {
		return nil, &fs.PathError{Op: "read", Path: path, Err: &TooLargeError{Limit: limit}}
	}
	return data, nil
}

// IsTooLarge reports whether err says a file was over its limit.
func IsTooLarge(err error) bool {
	var t *TooLargeError
	return errors.As(err, &t)
}

// FileKind names a non-regular file mode for a message.
func FileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0, m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return m.Type().String()
}

// Reason is err without the operation and path of an *fs.PathError
// around it ("no such file or directory"): for a message that names the
// file its own way (the path as the user wrote it, not a temporary
// file's).
func Reason(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
