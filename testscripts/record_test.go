//go:build unix

package testscripts

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// recordHead is a recording's first line, its time and mcpc's version
// left open.
var recordHead = regexp.MustCompile(`^\{"mcpc-record":1,"mcpc":"[^"]+","started":"([^"]+)"\}$`)

// record-shape FILE: FILE (or the one file in FILE, a directory) is a
// recording (mcpc help record) of mode
// 0600 whose first line is version 1's and whose every line is one JSON
// object with a valid time; stdout gets the shape of each line after the
// first, one a line: its keys in order, then what it is (the connection,
// the direction and transport, an HTTP method or status with the names
// of the headers recorded, a message's method or "result"/"error" with
// isError and structured when the result has them, text, omitted, note),
// so a script pins the lines exactly without the times, ids and bytes
// that change from run to run.
func cmdRecordShape(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: record-shape FILE")
	}
	path := ts.MkAbs(args[0])
	st, err := os.Stat(path)
	ts.Check(err)
	if st.IsDir() {
		files, err := os.ReadDir(path)
		ts.Check(err)
		if len(files) != 1 {
			ts.Fatalf("%s holds %d files, not one", args[0], len(files))
		}
		path = filepath.Join(path, files[0].Name())
		st, err = os.Stat(path)
		ts.Check(err)
	}
	if m := st.Mode().Perm(); m != 0o600 {
		ts.Fatalf("%s has mode %v, not 0600", args[0], m)
	}
	data, err := os.ReadFile(path)
	ts.Check(err)
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	m := recordHead.FindStringSubmatch(lines[0])
	if m == nil {
		ts.Fatalf("first line %q is not a version 1 recording's", lines[0])
	}
	checkRecordTime(ts, m[1])
	var out strings.Builder
	for i, line := range lines[1:] {
		shape, err := recordLineShape(line)
		if err != nil {
			ts.Fatalf("line %d: %v: %s", i+2, err, line)
		}
		out.WriteString(shape + "\n")
	}
	ts.Stdout().Write([]byte(out.String()))
}

func checkRecordTime(ts *testscript.TestScript, s string) {
	if t, err := time.Parse(time.RFC3339Nano, s); err != nil || !strings.HasSuffix(s, "Z") || time.Since(t) > time.Hour {
		ts.Fatalf("time %q is not a recent RFC 3339 time in UTC", s)
	}
}

// recordLineShape is the shape of one line after the first.
func recordLineShape(line string) (string, error) {
	keys, err := objectKeys([]byte(line))
	if err != nil {
		return "", err
	}
	var l struct {
		T         string
		Conn      int
		Server    string
		Dir       string
		Transport string
		HTTP      *struct {
			Method  string
			Status  int
			Headers map[string]string
		}
		Msg *struct {
			Method string
			Result *struct {
				IsError    bool
				Structured json.RawMessage `json:"structuredContent"`
			}
			Error json.RawMessage
		}
		Text    *string
		Omitted *struct{ Method string }
		Note    string
	}
	if err := json.Unmarshal([]byte(line), &l); err != nil {
		return "", err
	}
	if t, err := time.Parse(time.RFC3339Nano, l.T); err != nil || !strings.HasSuffix(l.T, "Z") || time.Since(t) > time.Hour {
		return "", fmt.Errorf("time %q is not a recent RFC 3339 time in UTC", l.T)
	}
	parts := []string{strings.Join(keys, ","), fmt.Sprint(l.Conn)}
	parts = append(parts, nonEmpty(l.Dir, l.Transport)...)
	if h := l.HTTP; h != nil {
		if h.Method != "" {
			parts = append(parts, h.Method)
		} else {
			parts = append(parts, fmt.Sprint(h.Status))
		}
		var names []string
		for k := range h.Headers {
			names = append(names, k)
		}
		slices.Sort(names)
		parts = append(parts, "["+strings.Join(names, " ")+"]")
	}
	switch {
	case l.Msg != nil && l.Msg.Method != "":
		parts = append(parts, l.Msg.Method)
	case l.Msg != nil && l.Msg.Result != nil:
		parts = append(parts, "result")
		if l.Msg.Result.IsError {
			parts = append(parts, "isError")
		}
		if len(l.Msg.Result.Structured) > 0 {
			parts = append(parts, "structured")
		}
	case l.Msg != nil && l.Msg.Error != nil:
		parts = append(parts, "error")
	case l.Omitted != nil:
		parts = append(parts, "omitted", l.Omitted.Method)
	case l.Text != nil:
		parts = append(parts, "text")
	}
	return strings.Join(parts, " "), nil
}

func nonEmpty(s ...string) []string {
	return slices.DeleteFunc(s, func(v string) bool { return v == "" })
}

// objectKeys are the keys of the JSON object data, in order.
func objectKeys(data []byte) ([]string, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("not a JSON object")
	}
	var keys []string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return nil, err
		}
		keys = append(keys, k.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, err
		}
	}
	if _, err := dec.Token(); err != nil || dec.More() {
		return nil, fmt.Errorf("not one JSON object")
	}
	return keys, nil
}

// no-secrets PATH VALUE...: none of the VALUEs is in any file at or under
// PATH in any form oauth-echoed looks for (as it is, form-encoded,
// JSON-escaped, in base64, made one line).
func cmdNoSecrets(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: no-secrets PATH VALUE...")
	}
	checkNoSecrets(ts, args[1:], args[:1])
}
