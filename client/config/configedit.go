package config

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/fsx"
)

// member is one "key": value pair of a JSON object, as byte offsets.
type member struct {
	key                        string
	keyStart, valStart, valEnd int64
}

// object is a JSON object's members and the offsets of its braces.
type object struct {
	open, close int64 // offsets of '{' and '}'
	members     []member
}

// scanObject reads the object starting at data[at] (a '{'), locating its
// members with the walker that locates ParseFile's errors.
func scanObject(data []byte, at int64) (*object, error) {
	w := &walker{data: data, dec: json.NewDecoder(bytes.NewReader(data[at:])), base: at}
	if t, err := w.dec.Token(); err != nil || t != json.Delim('{') {
		return nil, errors.New("not a JSON object")
	}
	o := &object{open: at}
	for w.dec.More() {
		key, start, err := w.key()
		if err != nil {
			return nil, err
		}
		val := w.valueStart()
		if err := w.skip(); err != nil {
			return nil, err
		}
		o.members = append(o.members, member{key: key, keyStart: start, valStart: val, valEnd: w.offset()})
	}
	if _, err := w.dec.Token(); err != nil {
		return nil, err
	}
	o.close = w.offset() - 1
	return o, nil
}

func (o *object) find(key string) int {
	for i, m := range o.members {
		if m.key == key {
			return i
		}
	}
	return -1
}

// indentOf is the run of blanks that starts the line holding offset.
func indentOf(data []byte, off int64) string {
	start := bytes.LastIndexByte(data[:off], '\n') + 1
	end := start
	for end < len(data) && (data[end] == ' ' || data[end] == '\t') {
		end++
	}
	return string(data[start:end])
}

// insertMember adds "key": value (value already indented for its place)
// at the end of o, after its last member, in the layout the object has.
func insertMember(data []byte, o *object, key string, value func(indent, unit string) []byte) []byte {
	k, _ := json.Marshal(key)
	var ins []byte
	var at int64
	if n := len(o.members); n > 0 {
		last := o.members[n-1]
		ind := indentOf(data, last.keyStart)
		sep := "\n" + ind
		if !bytes.Contains(data[o.open:last.keyStart], []byte("\n")) {
			sep = " " // a one-line object stays on one line
			ind = ""
		}
		at = last.valEnd
		unit := strings.TrimPrefix(ind, indentOf(data, o.open))
		if unit == "" {
			unit = "  "
		}
		ins = append([]byte(","+sep+string(k)+": "), value(ind, unit)...)
	} else {
		outer := indentOf(data, o.open)
		ind := outer + "  "
		at = o.open + 1
		ins = append([]byte("\n"+ind+string(k)+": "), value(ind, "  ")...)
		ins = append(ins, "\n"+outer...)
		// Drop the blanks between the braces of an empty object.
		data = append(data[:at:at], data[o.close:]...)
	}
	out := append([]byte{}, data[:at]...)
	out = append(out, ins...)
	return append(out, data[at:]...)
}

// SetServer returns data (a config file's bytes, or nil for a new file)
// with server name set to s. Everything else in the file keeps its bytes:
// only the entry is written, in the layout of the entries around it.
func SetServer(data []byte, name string, s *Server) ([]byte, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		data = []byte("{}\n")
	}
	top, err := scanObject(data, int64(bytes.IndexByte(data, '{')))
	if err != nil {
		return nil, err
	}
	// An entry at the left margin, or in a one-line object, is one line.
	entry := func(indent, unit string) []byte {
		if indent == "" {
			b, _ := json.Marshal(s)
			return b
		}
		b, _ := json.MarshalIndent(s, indent, unit)
		return b
	}
	i := top.find("mcpServers")
	if i < 0 {
		return insertMember(data, top, "mcpServers", func(indent, unit string) []byte {
			return []byte("{\n" + indent + unit + quote(name) + ": " + string(entry(indent+unit, unit)) + "\n" + indent + "}")
		}), nil
	}
	servers, err := scanObject(data, top.members[i].valStart)
	if err != nil {
		return nil, errors.New(`"mcpServers" is not an object`)
	}
	if j := servers.find(name); j >= 0 {
		m := servers.members[j]
		out := append([]byte{}, data[:m.valStart]...)
		ind := indentOf(data, m.keyStart)
		unit := strings.TrimPrefix(ind, indentOf(data, servers.open))
		if unit == "" {
			unit = "  "
		}
		out = append(out, entry(ind, unit)...)
		return append(out, data[m.valEnd:]...), nil
	}
	return insertMember(data, servers, name, entry), nil
}

// RemoveServer returns data without server name, and whether it was there.
func RemoveServer(data []byte, name string) ([]byte, bool, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return data, false, nil // no file yet: no server in it
	}
	top, err := scanObject(data, int64(bytes.IndexByte(data, '{')))
	if err != nil {
		return nil, false, err
	}
	i := top.find("mcpServers")
	if i < 0 {
		return data, false, nil
	}
	servers, err := scanObject(data, top.members[i].valStart)
	if err != nil {
		return nil, false, errors.New(`"mcpServers" is not an object`)
	}
	j := servers.find(name)
	if j < 0 {
		return data, false, nil
	}
	var from, to int64
	switch ms := servers.members; {
	case j > 0:
		// From the end of the previous entry: its comma goes too.
		from, to = ms[j-1].valEnd, ms[j].valEnd
	case len(ms) > 1:
		from, to = ms[0].keyStart, ms[1].keyStart
	default:
		from, to = servers.open+1, servers.close
	}
	out := append([]byte{}, data[:from]...)
	return append(out, data[to:]...), true, nil
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// ConfigEdit names the config file an edit changes.
type ConfigEdit struct {
	Path   string
	Source Source
	Dirs   Dirs      // the state directory holds the edit lock and the trust records
	Now    time.Time // when a project file is trusted as edited
}

// Edited is what EditFile wrote.
type Edited struct {
	*File // as written: File.Hash is the SHA-256 of the bytes written
	// Trusted: a project file that was trusted before the edit (or is new),
	// and so is trusted as written.
	Trusted bool
}

// EditFile applies edit to the config file (absent: empty) under the
// file's edit lock: the file is read under the lock, so each of concurrent
// edits starts from what the one before wrote, and nothing is lost. The
// result must still be a valid config file; it is written atomically, and
// through a symlink (a config linked from a dotfiles repository stays a
// link, its target changes and keeps its mode); a new file is private to
// the user. A project file trusted before the edit, or made by it, is
// trusted as written, under the same lock and by the hash of the very
// bytes written: the user made the change through mcpc.
func EditFile(ctx context.Context, e ConfigEdit, edit func([]byte) ([]byte, error)) (*Edited, error) {
	var res *Edited
	err := withEditLock(ctx, e.Dirs.LockDir(), e.Path, func() error {
		var err error
		res, err = editLocked(ctx, e, edit)
		return err
	})
	return res, err
}

func editLocked(ctx context.Context, e ConfigEdit, edit func([]byte) ([]byte, error)) (*Edited, error) {
	path, src := e.Path, e.Source
	data, err := fsx.ReadFile(path, MaxConfigFile)
	existed := err == nil
	before := &File{Path: path, Source: src}
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, fail.Wrap(fail.Config, err, "", "cannot read %s", path)
	default:
		if before = ParseFile(path, src, data); before.Err != nil {
			return nil, &fail.Error{Code: fail.Config, Msg: before.Err.Error(), Hint: "fix the file first", Err: before.Err}
		}
	}
	store := TrustStore{Dir: e.Dirs.State}
	trusted := src == SourceProject && !existed
	if src == SourceProject && existed {
		// Judged by the bytes being edited, read under the lock: a file
		// changed behind mcpc's back since it was trusted must not be
		// trusted now because mcpc added a server to it.
		state, err := store.State(path, hashBytes(data))
		if err != nil {
			return nil, err
		}
		trusted = state == Trusted
	}
	out, err := edit(data)
	if err != nil {
		return nil, fail.Wrap(fail.Config, err, "fix the file first", "cannot edit %s", path)
	}
	// Nothing changed (a remove of a name that is not there): the file,
	// and its trust, are left as they are; a missing file is not made.
	if bytes.Equal(out, data) {
		return &Edited{File: before, Trusted: trusted && existed}, nil
	}
	f := ParseFile(path, src, out)
	if f.Err == nil {
		f.Err = newlyUnusable(before, f)
	}
	if f.Err != nil {
		return nil, &fail.Error{Code: fail.Config, Msg: f.Err.Error(), Err: f.Err}
	}
	if !existed {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, fail.Wrap(fail.Config, err, "", "cannot create %s", filepath.Dir(path))
		}
	}
	if err := fsx.WriteFile(path, out, 0o600, fsx.Follow); err != nil {
		return nil, fail.Wrap(fail.Config, err, "", "cannot write %s", path)
	}
	if trusted {
		if _, err := store.Set(ctx, path, f.Hash, e.Now); err != nil {
			return nil, err
		}
	}
	return &Edited{File: f, Trusted: trusted}, nil
}

// editLockWait bounds the wait for another invocation's edit of the same
// file: an edit is a read and a write, so a holder this slow is stuck.
const editLockWait = 30 * time.Second

// withEditLock runs f holding the lock that stands for path, in lockDir
// (fsx.LockPath: the file itself is replaced by rename, so it cannot carry
// the lock). The kernel frees the lock of a process that dies.
func withEditLock(ctx context.Context, lockDir, path string, f func() error) error {
	lctx, cancel := context.WithTimeout(ctx, editLockWait)
	defer cancel()
	unlock, err := fsx.Lock(lctx, fsx.LockPath(lockDir, path))
	switch {
	case err == nil:
	case ctx.Err() != nil:
		return ctx.Err()
	case lctx.Err() != nil:
		return fail.New(fail.Timeout, "another mcpc is editing it; if that process is stuck, end it (its lock is freed when it exits)",
			"gave up waiting to edit %s after %s", path, editLockWait)
	default:
		return fail.Wrap(fail.Config, err, "check that the state directory is writable", "cannot lock %s for editing", path)
	}
	defer unlock()
	return f()
}

// newlyUnusable is the reason of the first server an edit made unusable:
// mcpc never writes an entry it could not use, though it leaves alone one
// already in the file (written for another host, perhaps).
func newlyUnusable(before, after *File) error {
	for _, name := range after.Names {
		err := after.Servers[name].Unusable()
		if err == nil {
			continue
		}
		if old, ok := before.Servers[name]; !ok || old.Unusable() == nil {
			return err
		}
	}
	return nil
}
