package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"

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

// EditFile applies edit to the config file at path (absent: empty) and
// writes the result atomically, after checking it is still a valid config
// file. A new file is private to the user.
func EditFile(path string, src Source, edit func([]byte) ([]byte, error)) (*File, error) {
	data, err := fsx.ReadFile(path, MaxConfigFile)
	perm := os.FileMode(0o600)
	switch {
	case errors.Is(err, os.ErrNotExist):
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, fail.Wrap(fail.Config, err, "", "cannot create %s", filepath.Dir(path))
		}
	case err != nil:
		return nil, fail.Wrap(fail.Config, err, "", "cannot read %s", path)
	default:
		if fi, err := os.Stat(path); err == nil {
			perm = fi.Mode().Perm()
		}
		if f := ParseFile(path, src, data); f.Err != nil {
			return nil, &fail.Error{Code: fail.Config, Msg: f.Err.Error(), Hint: "fix the file first", Err: f.Err}
		}
	}
	out, err := edit(data)
	if err != nil {
		return nil, fail.Wrap(fail.Config, err, "fix the file first", "cannot edit %s", path)
	}
	f := ParseFile(path, src, out)
	if f.Err != nil {
		return nil, &fail.Error{Code: fail.Config, Msg: f.Err.Error(), Err: f.Err}
	}
	if err := writeFileAtomic(path, out, perm); err != nil {
		return nil, fail.Wrap(fail.Config, err, "", "cannot write %s", path)
	}
	return f, nil
}
