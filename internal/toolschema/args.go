// This file reads a tool's (or a prompt's, or an answer's) arguments from
// the command line: key=value words typed by the schema, key:=JSON, @FILE
// and --args objects, each read bounded and checked before any I/O.

package toolschema

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/fsx"
	"github.com/mcpc-dev/mcpc/internal/jsonpos"
)

// Pair is one key=value (string) or key:=json (typed) word.
type Pair struct {
	Key   string
	Raw   string
	Typed bool
	// File is what a key=@PATH or key:=@PATH word names ("-": stdin);
	// ReadPairFiles puts its contents in Raw. A file's text is sent as it
	// is: the schema never turns it into a number or a boolean.
	File string
}

// ParsePairs reads key=value and key:=json words. It runs before any I/O so
// a typo fails fast with exit 2. A value @PATH names a file, @- stdin (once:
// it cannot be read twice), @@text is the literal @text.
func ParsePairs(words []string) ([]Pair, error) {
	var out []Pair
	stdinKey := ""
	for _, w := range words {
		i := strings.IndexByte(w, '=')
		if i <= 0 || (i == 1 && w[0] == ':') {
			return nil, fail.New(fail.Usage, "pass arguments as key=value (a string) or key:=JSON (a number, boolean, array or object)",
				"invalid argument %q: expected key=value or key:=json", w)
		}
		p := Pair{Key: w[:i], Raw: w[i+1:]}
		if strings.HasSuffix(p.Key, ":") {
			p.Key, p.Typed = p.Key[:len(p.Key)-1], true
		}
		switch {
		case strings.HasPrefix(p.Raw, "@@"):
			p.Raw = p.Raw[1:]
		case p.Raw == "@":
			return nil, fail.New(fail.Usage, "name a file (key=@PATH), stdin (key=@-), or write key=@@text for a literal @text",
				"argument %q: @ needs a file name", p.Key)
		case strings.HasPrefix(p.Raw, "@"):
			p.File, p.Raw = p.Raw[1:], ""
			if p.File == "-" {
				if stdinKey != "" {
					return nil, fail.New(fail.Usage, "put one of the values in a file and pass key=@PATH",
						"arguments %q and %q both read standard input (@-); it can be read once", stdinKey, p.Key)
				}
				stdinKey = p.Key
			}
			out = append(out, p)
			continue
		}
		if p.Typed {
			if err := checkJSON(p.Raw); err != nil {
				return nil, fail.New(fail.Usage, "quote JSON for the shell, e.g. 'tags:=[\"a\",\"b\"]'; for a plain string use key=value",
					"invalid JSON for argument %q: %v", p.Key, err)
			}
		}
		out = append(out, p)
	}
	return out, nil
}

// WordReadsStdin says a command-line word is key=@- or key:=@-. A URL
// (its key would hold "scheme:") is not one.
func WordReadsStdin(w string) bool {
	key, val, ok := strings.Cut(w, "=")
	return ok && val == "@-" && key != "" && !strings.Contains(strings.TrimSuffix(key, ":"), ":")
}

func checkJSON(s string) error {
	var v any
	return jsonpos.Decode([]byte(s), &v)
}

// ReadArgs reads --args: inline JSON, @FILE, or - for stdin. The value
// must be a JSON object.
func ReadArgs(v string, stdin io.Reader, cwd string) (map[string]any, error) {
	return ReadObject("--args", `'{"q":"bug"}'`, v, stdin, cwd)
}

// MaxObject bounds what --args, --answers and key=@FILE read from a
// file or stdin: /dev/zero or a mistyped path to a disk image must be refused, not
// read until memory runs out.
const MaxObject = 64 << 20

// ReadObject reads a flag whose value is a JSON object given inline,
// as @FILE, or as - for stdin. example shows a valid value in hints.
func ReadObject(flag, example, v string, stdin io.Reader, cwd string) (map[string]any, error) {
	if v == "" {
		return nil, nil
	}
	hint := flag + " takes a JSON object such as " + example
	data, where := []byte(v), flag
	switch {
	case v == "-":
		b, err := readValueSource(flag, "-", "", stdin, cwd)
		if err != nil {
			return nil, err
		}
		data, where = b, flag+" from stdin"
	case strings.HasPrefix(v, "@"):
		b, err := readValueSource(flag, v[1:], "object on stdin with "+flag+" -", stdin, cwd)
		if err != nil {
			return nil, err
		}
		data, where = b, flag+" file "+v[1:]
	}
	// Decode into any first: the value's kind decides the message, with no
	// need to read the decoder's error text.
	var val any
	if err := jsonpos.Decode(data, &val); err != nil {
		return nil, fail.New(fail.Usage, hint, "invalid JSON in %s: %v", where, err)
	}
	switch obj := val.(type) {
	case map[string]any:
		return obj, nil
	case nil:
		return nil, fail.New(fail.Usage, hint, "%s must be a JSON object, not null", where)
	default:
		return nil, fail.New(fail.Usage, hint, "%s must be a JSON object", where)
	}
}

// readValueSource reads the file name names (relative to cwd), or stdin for
// "-", bounded as every file a command line names is: fsx.ReadFile refuses
// a FIFO, a device or a file over MaxObject before reading it. what
// names the value in messages ("--args", "argument \"body\""); viaStdin
// ends the hint for a FIFO: how to pass it on stdin instead.
func readValueSource(what, name, viaStdin string, stdin io.Reader, cwd string) ([]byte, error) {
	if name == "-" {
		b, err := io.ReadAll(io.LimitReader(stdin, MaxObject+1))
		if err != nil {
			return nil, fail.New(fail.Usage, "", "cannot read %s from stdin: %v", what, err)
		}
		if len(b) > MaxObject {
			return nil, fail.New(fail.Usage, "", "%s from stdin is %v", what, &fsx.TooLargeError{Limit: MaxObject})
		}
		return b, nil
	}
	path := name
	if !filepath.IsAbs(path) {
		path = filepath.Join(cwd, path)
	}
	b, err := fsx.ReadFile(path, MaxObject)
	if err != nil {
		var nr *fsx.NotRegularError
		h := ""
		if errors.As(err, &nr) {
			// A pipe can still be given: stdin is read as a stream.
			h = "give a regular file, or pass the " + viaStdin
		}
		return nil, fail.New(fail.Usage, h, "cannot read %s file: %v", what, err)
	}
	return b, nil
}

// ReadPairFiles reads the values key=@PATH and key:=@PATH words name, and
// stdin for key=@-, before any server starts: a missing file is exit 2,
// not a started server. stdinBy is what already reads stdin ("" for
// nothing, else e.g. "--args -"); it returns what reads it now.
func ReadPairFiles(pairs []Pair, stdinBy string, stdin io.Reader, cwd string) (string, error) {
	for i := range pairs {
		p := &pairs[i]
		if p.File == "" {
			continue
		}
		what := fmt.Sprintf("argument %q", p.Key)
		sep := "="
		if p.Typed {
			sep = ":="
		}
		if p.File == "-" {
			if stdinBy != "" {
				return "", fail.New(fail.Usage, "put one of them in a file and pass @FILE",
					"%s%s@- and %s cannot both read standard input", p.Key, sep, stdinBy)
			}
			stdinBy = p.Key + sep + "@-"
		}
		data, err := readValueSource(what, p.File, "value on stdin with "+p.Key+sep+"@-", stdin, cwd)
		if err != nil {
			return "", err
		}
		where := "file " + p.File
		if p.File == "-" {
			where = "stdin"
		}
		if p.Typed {
			if err := checkJSON(string(data)); err != nil {
				return "", fail.New(fail.Usage, "the file must hold one JSON value; pass "+p.Key+"=@"+p.File+" to send its text as a string",
					"invalid JSON in %s of argument %q: %v", where, p.Key, err)
			}
		} else if !utf8.Valid(data) {
			// JSON strings are Unicode text: the bytes would arrive altered.
			return "", fail.New(fail.Usage, "send text files only; encode binary data (e.g. base64) into a file first",
				"%s of argument %q is not UTF-8 text", where, p.Key)
		}
		p.Raw = string(data)
	}
	return stdinBy, nil
}

// Merge lays pairs over base (pairs win). A key=value word stays a
// string unless the tool's schema says the property is a number, integer or
// boolean (and not a string) and the text parses as one: that is what
// someone typing n=5 means.
func Merge(base map[string]any, pairs []Pair, types map[string][]string) map[string]any {
	out := map[string]any{}
	for k, v := range base {
		out[k] = v
	}
	for _, p := range pairs {
		if p.Typed {
			var v any
			_ = jsonpos.Decode([]byte(p.Raw), &v) // checked in ParsePairs
			out[p.Key] = v
			continue
		}
		if p.File != "" {
			out[p.Key] = p.Raw
			continue
		}
		out[p.Key] = Coerce(p.Raw, types[p.Key])
	}
	return out
}

// PromptArgs lays pairs over base (pairs win) as a prompt's arguments,
// which are strings on the wire: a value of base that is not a string is
// refused, and a key:=json word sends its JSON text (the string itself
// when the JSON is a string).
func PromptArgs(base map[string]any, pairs []Pair) (map[string]string, error) {
	out := map[string]string{}
	for k, v := range base {
		s, ok := v.(string)
		if !ok {
			return nil, fail.New(fail.Usage, "prompt arguments are strings", "--args: value of %q must be a string", k)
		}
		out[k] = s
	}
	for _, p := range pairs {
		if p.Typed {
			var v any
			_ = json.Unmarshal([]byte(p.Raw), &v)
			if s, ok := v.(string); ok {
				out[p.Key] = s
				continue
			}
		}
		out[p.Key] = p.Raw
	}
	return out, nil
}

func Coerce(s string, types []string) any {
	if slices.Contains(types, "string") || len(types) == 0 {
		return s
	}
	for _, t := range types {
		switch t {
		case "integer":
			if _, err := strconv.ParseInt(s, 10, 64); err == nil {
				return json.Number(s)
			}
		case "number":
			if f, err := strconv.ParseFloat(s, 64); err == nil && !strings.ContainsAny(s, "xXpP_") && !math.IsInf(f, 0) && !math.IsNaN(f) {
				return json.Number(s)
			}
		case "boolean":
			if s == "true" || s == "false" {
				return s == "true"
			}
		case "null":
			if s == "null" {
				return nil
			}
		}
	}
	return s
}
