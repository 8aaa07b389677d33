package config

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
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
	if at < 0 || at >= int64(len(data)) {
		return nil, errors.New("not a JSON object") // no '{' to start at
	}
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

// splice replaces data[at:end] with text.
type splice struct {
	at, end int64
	text    []byte
}

// applySplices makes the edits (in order, not overlapping) in one pass
// over data, so that writing n entries costs one copy of the file, not n.
func applySplices(data []byte, edits []splice) []byte {
	size := len(data)
	for _, e := range edits {
		size += len(e.text) - int(e.end-e.at)
	}
	out := make([]byte, 0, size)
	var prev int64
	for _, e := range edits {
		out = append(append(out, data[prev:e.at]...), e.text...)
		prev = e.end
	}
	return append(out, data[prev:]...)
}

// keyValue is one member to add to an object: its value is laid out for
// the indent it lands at.
type keyValue struct {
	key   string
	value func(indent, unit string) []byte
}

// insertMembers is the edit that adds the members kvs at the end of o,
// after its last member, in the layout the object has.
func insertMembers(data []byte, o *object, kvs []keyValue) splice {
	var ins []byte
	if n := len(o.members); n > 0 {
		last := o.members[n-1]
		ind := indentOf(data, last.keyStart)
		sep := "\n" + ind
		if !bytes.Contains(data[o.open:last.keyStart], []byte("\n")) {
			sep = " " // a one-line object stays on one line
			ind = ""
		}
		unit := strings.TrimPrefix(ind, indentOf(data, o.open))
		if unit == "" {
			unit = "  "
		}
		for _, kv := range kvs {
			ins = appendMember(ins, ","+sep, kv.key, kv.value(ind, unit))
		}
		return splice{at: last.valEnd, end: last.valEnd, text: ins}
	}
	outer := indentOf(data, o.open)
	ind := outer + "  "
	for i, kv := range kvs {
		if i > 0 {
			ins = append(ins, ',')
		}
		ins = appendMember(ins, "\n"+ind, kv.key, kv.value(ind, "  "))
	}
	// The blanks between the braces of an empty object go.
	return splice{at: o.open + 1, end: o.close, text: append(ins, "\n"+outer...)}
}

// appendMember appends lead, then "key": value.
func appendMember(b []byte, lead, key string, value []byte) []byte {
	return append(append(append(b, lead...), quote(key)+": "...), value...)
}

// NamedServer is one server to write, under its name.
type NamedServer struct {
	Name   string
	Server *Server
}

// SetServer returns data (a config file's bytes, or nil for a new file)
// with server name set to s. Everything else in the file keeps its bytes:
// only the entry is written, in the layout of the entries around it.
func SetServer(data []byte, name string, s *Server) ([]byte, error) {
	return SetServers(data, []NamedServer{{name, s}})
}

// SetServers is SetServer for each of servers in turn (a later one of a
// name replaces an earlier), in one pass over data: a server the file has
// is replaced where it is, the others are added after its last one.
func SetServers(data []byte, servers []NamedServer) ([]byte, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		data = []byte("{}\n")
	}
	top, err := scanObject(data, int64(bytes.IndexByte(data, '{')))
	if err != nil {
		return nil, err
	}
	// An entry at the left margin, or in a one-line object, is one line.
	entry := func(s *Server) func(indent, unit string) []byte {
		return func(indent, unit string) []byte {
			if indent == "" {
				b, _ := json.Marshal(s)
				return b
			}
			b, _ := json.MarshalIndent(s, indent, unit)
			return b
		}
	}
	// The last server of each name, in the order of the first.
	var added []keyValue
	at := map[string]int{}
	for _, ns := range servers {
		if i, ok := at[ns.Name]; ok {
			added[i].value = entry(ns.Server)
			continue
		}
		at[ns.Name] = len(added)
		added = append(added, keyValue{ns.Name, entry(ns.Server)})
	}
	i := top.find("mcpServers")
	if i < 0 {
		e := insertMembers(data, top, []keyValue{{"mcpServers", func(indent, unit string) []byte {
			b := []byte("{")
			for j, kv := range added {
				if j > 0 {
					b = append(b, ',')
				}
				b = appendMember(b, "\n"+indent+unit, kv.key, kv.value(indent+unit, unit))
			}
			return append(b, "\n"+indent+"}"...)
		}}})
		return applySplices(data, []splice{e}), nil
	}
	obj, err := scanObject(data, top.members[i].valStart)
	if err != nil {
		return nil, errors.New(`"mcpServers" is not an object`)
	}
	var edits []splice
	for _, m := range obj.members {
		j, ok := at[m.key]
		if !ok || added[j].value == nil {
			continue
		}
		ind := indentOf(data, m.keyStart)
		unit := strings.TrimPrefix(ind, indentOf(data, obj.open))
		if unit == "" {
			unit = "  "
		}
		edits = append(edits, splice{at: m.valStart, end: m.valEnd, text: added[j].value(ind, unit)})
		added[j].value = nil // written in place
	}
	added = slices.DeleteFunc(added, func(kv keyValue) bool { return kv.value == nil })
	if len(added) > 0 {
		edits = append(edits, insertMembers(data, obj, added))
	}
	return applySplices(data, edits), nil
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

// EditTarget is the file a config edit (mcpc config add, remove, import)
// changes: the user file, or with project the project's .mcp.json, found
// from cwd upwards as loading finds it, or made in cwd when there is none.
func EditTarget(dirs Dirs, cwd string, project bool, now time.Time) ConfigEdit {
	e := ConfigEdit{Path: dirs.UserConfigFile(), Source: SourceUser, Dirs: dirs, Now: now}
	if project {
		e.Source = SourceProject
		if e.Path = FindProjectFile(cwd, dirs.Home); e.Path == "" {
			e.Path = filepath.Join(cwd, ".mcp.json")
		}
	}
	return e
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
			if link, target, ok := danglingLink(err); ok {
				return nil, fail.New(fail.Config, "create "+target+", or remove the link "+link+" to let mcpc create the directory",
					"cannot create %s: %s is a symbolic link to %s, which does not exist", filepath.Dir(path), link, target)
			}
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

// danglingLink says whether a MkdirAll failed on a symbolic link to a
// missing target, which it reports only as "file exists", and names the
// link and its target (resolved against the link's directory).
func danglingLink(err error) (link, target string, ok bool) {
	var pe *fs.PathError
	if !errors.Is(err, fs.ErrExist) || !errors.As(err, &pe) {
		return "", "", false
	}
	if st, lerr := os.Lstat(pe.Path); lerr != nil || st.Mode()&fs.ModeSymlink == 0 {
		return "", "", false
	}
	target, rerr := os.Readlink(pe.Path)
	if rerr != nil {
		return "", "", false
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(filepath.Dir(pe.Path), target)
	}
	if _, serr := os.Stat(target); !errors.Is(serr, fs.ErrNotExist) {
		return "", "", false
	}
	return pe.Path, target, true
}
