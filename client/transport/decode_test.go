package transport

import (
	"reflect"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// DecodeMessage decodes as the SDK's decoder does, and fails where it
// fails, with its error.
func TestDecodeMessageAsSDK(t *testing.T) {
	deep := `{"jsonrpc":"2.0","id":1,"method":"x","params":` + strings.Repeat("[", 1001) + strings.Repeat("]", 1001) + `}`
	for _, in := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`,
		`{"jsonrpc":"2.0","id":"a","method":"ping"}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":0.5}}`,
		`{"jsonrpc":"2.0","id":7,"result":{"content":[]}}`,
		`{"jsonrpc":"2.0","id":7.0,"result":{}}`,
		`{"jsonrpc":"2.0","id":"x","error":{"code":-32601,"message":"no","data":{"a":1}}}`,
		`{"jsonrpc":"2.0","id":"x","error":null,"result":{}}`,
		`{"jsonrpc":"2.0","id":1,"method":null}`,
		`{"jsonrpc":"2.0","id":1,"method":""}`,
		`{"jsonrpc":"2.0","id":1,"Method":"ping"}`,    // no case-blind match: a response
		`{"jsonrpc":"2.0","ID":1,"method":"ping"}`,    // a notification
		`{"jsonrpc":"2.0","id":1,"method":"a"} trail`, // the first value only
		`  {"jsonrpc":"2.0","id":1,"result":1}  `,
		`{"jsonrpc":"2.0","id":1,"method":"a","params":` + strings.Repeat("[", 1000) + strings.Repeat("]", 1000) + `}`,
		`{"jsonrpc":"2.0","id":1,"method":"\u0070ing","params":{"s":"\"{["}}`,
		// failures
		deep,
		`{"jsonrpc":"1.0","id":1,"method":"a"}`,
		`{"id":1,"method":"a"}`,
		`{"jsonrpc":"2.0","result":{}}`,
		`{"jsonrpc":"2.0","id":{},"method":"a"}`,
		`{"jsonrpc":"2.0","id":[1],"result":1}`,
		`{"jsonrpc":"2.0","id":1,"method":5}`,
		`{"jsonrpc":"2.0","id":1,"error":"bad"}`,
		`{"jsonrpc":2,"id":1,"method":"a"}`,
		`{"jsonrpc":"2.0","id":1,"method":"a"`,
		`[1,2]`, `null`, `"s"`, ``, ` `, `{`, `}`, `nope`,
	} {
		want, wantErr := jsonrpc.DecodeMessage([]byte(in))
		got, err := DecodeMessage([]byte(in))
		if (err == nil) != (wantErr == nil) || (err != nil && err.Error() != wantErr.Error()) {
			t.Errorf("%.80s: error %v, the SDK's %v", in, err, wantErr)
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%.80s: %#v, the SDK's %#v", in, got, want)
		}
	}
}

// What DecodeMessage keeps does not share the bytes it read: a reader's
// buffer is reused for the next line.
func TestDecodeMessageCopies(t *testing.T) {
	data := []byte(`{"jsonrpc":"2.0","id":"abc","method":"m","params":{"k":"v"}}`)
	m, err := DecodeMessage(data)
	if err != nil {
		t.Fatal(err)
	}
	for i := range data {
		data[i] = 'x'
	}
	r := m.(*jsonrpc.Request)
	if r.Method != "m" || string(r.Params) != `{"k":"v"}` || r.ID.Raw() != "abc" {
		t.Errorf("the message changed with the bytes it was read from: %#v", r)
	}
}

func BenchmarkDecodeMessage(b *testing.B) {
	data := []byte(`{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}`)
	b.Run("sdk", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			jsonrpc.DecodeMessage(data)
		}
	})
	b.Run("mcpc", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			DecodeMessage(data)
		}
	})
}

// deeper counts brackets outside strings only: escaped quotes and runs
// of backslashes before a quote decide where a string ends.
func TestDeeper(t *testing.T) {
	for _, c := range []struct {
		in   string
		max  int
		want bool
	}{
		{`{"a":[1]}`, 2, false},
		{`{"a":[[1]]}`, 2, true},
		{`{"a":"[[[["}`, 1, false},
		{`{"a":"\"[[["}`, 1, false},
		{`{"a":"\\"}`, 1, false},
		{`{"a":"\\","b":[[1]]}`, 2, true},
		{`{"a":"\\\"[[","b":1}`, 1, false},
		{`{"a":"x\\\\"}[[`, 1, true},
		{`{"a":"unterminated [[[`, 1, false},
		{`[[["`, 2, true},
		{`""`, 0, false},
	} {
		if got := deeper([]byte(c.in), c.max); got != c.want {
			t.Errorf("deeper(%s, %d) = %v, want %v", c.in, c.max, got, c.want)
		}
	}
}
