package fsx

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
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
	f, err := openRead(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "read", Path: path, Err: &NotRegularError{Kind: FileKind(st.Mode())}}
	}
	if st.Size() > limit {
		return nil, &fs.PathError{Op: "read", Path: path, Err: &TooLargeError{Limit: limit}}
	}
	// The size can change under us (a growing log): read at most limit+1,
	// in a buffer that grows with what is read, not with what Stat said.
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
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
