package client

import (
	"fmt"
	"io"
	"os"
	"syscall"
)

// MaxConfigFile bounds a config or trust file: real ones are a few KiB, and
// a file planted to exhaust memory must not be read in full.
const MaxConfigFile = 4 << 20

// ReadSmallFile reads a regular file of at most limit bytes. It refuses
// anything else before reading: a FIFO would block for ever, /dev/zero would
// never end. The open itself cannot block (O_NONBLOCK). A symlink to a
// regular file is read.
func ReadSmallFile(path string, limit int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, &os.PathError{Op: "read", Path: path, Err: fmt.Errorf("not a regular file (%s)", fileKind(st.Mode()))}
	}
	if st.Size() > limit {
		return nil, &os.PathError{Op: "read", Path: path, Err: tooLarge(limit)}
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, &os.PathError{Op: "read", Path: path, Err: tooLarge(limit)}
	}
	return data, nil
}

func tooLarge(limit int64) error {
	if limit%(1<<20) == 0 {
		return fmt.Errorf("larger than the %d MiB limit", limit>>20)
	}
	return fmt.Errorf("larger than the %d-byte limit", limit)
}

func fileKind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a named pipe"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeDevice != 0:
		return "a device"
	}
	return m.Type().String()
}
