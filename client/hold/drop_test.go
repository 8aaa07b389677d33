package hold

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcpc-dev/mcpc/client/holdwire"
)

// An invocation that does not read while 2,000 log messages and then its
// answer are routed to it is not let go: the first attachNotes wait, the
// rest are dropped and counted, and the count arrives in their place,
// before the answer, which arrives whole.
func TestSlowReaderKeepsItsAnswer(t *testing.T) {
	holder, inv := net.Pipe()
	defer inv.Close()
	a := &attach{conn: holder, out: make(chan jsonrpc.Message, attachQueue), done: make(chan struct{}), ids: map[string]string{}}
	go a.writeLoop()
	defer a.close()
	const logs = 2000
	for i := range logs {
		a.send(&jsonrpc.Request{Method: "notifications/message", Params: json.RawMessage(fmt.Sprintf(`{"level":"debug","data":%d}`, i))})
	}
	id, _ := jsonrpc.MakeID("answer")
	a.send(&jsonrpc.Response{ID: id, Result: json.RawMessage(`{"content":[]}`)})
	r := bufio.NewScanner(inv)
	shown, answered := 0, false
	var note *jsonrpc.Request
	for r.Scan() {
		msg, err := jsonrpc.DecodeMessage(r.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		if resp, ok := msg.(*jsonrpc.Response); ok {
			if resp.ID != id || note == nil {
				t.Fatalf("answer %v came after %d log messages and note %v", resp.ID, shown, note)
			}
			answered = true
			break
		}
		switch m := msg.(*jsonrpc.Request); m.Method {
		case holdwire.Dropped:
			note = m
		default:
			shown++
		}
	}
	if !answered {
		t.Fatalf("no answer after %d log messages: the invocation was let go", shown)
	}
	if shown != attachNotes {
		t.Errorf("%d log messages shown, want the %d queued", shown, attachNotes)
	}
	if got := holdwire.DroppedShown(note.Params, shownAt("debug"), false); got != logs-attachNotes {
		t.Errorf("the note %s counts %d dropped, want %d", note.Params, got, logs-attachNotes)
	}
	if got := holdwire.DroppedShown(note.Params, shownAt("info"), false); got != 0 {
		t.Errorf("at --log-level info the note %s counts %d shown, want 0: nothing dropped would have been", note.Params, got)
	}
}

// A server that sends the holder's dropped note does not reach an
// invocation with it: only the holder counts what it dropped.
func TestForgedDroppedNoteIsDropped(t *testing.T) {
	s := &fakeUpstream{label: `server "a"`}
	h := &Holder{s: s, calls: map[string]*route{}, progress: map[string]*route{}, asked: map[string]asked{}, tasks: map[string]*attach{},
		conns: map[*attach]bool{}, lostC: make(chan struct{}), lists: newHeldLists(0)}
	a := &attach{out: make(chan jsonrpc.Message, 8), done: make(chan struct{}), ids: map[string]string{}}
	h.conns[a] = true
	h.serverNotification(&jsonrpc.Request{Method: holdwire.Dropped, Params: json.RawMessage(`{"levels":{"emergency":99}}`)})
	h.serverNotification(&jsonrpc.Request{Method: "notifications/message", Params: json.RawMessage(`{"level":"info","data":"real"}`)})
	if m := (<-a.out).(*jsonrpc.Request); m.Method != "notifications/message" || len(a.out) != 0 {
		t.Fatalf("the invocation got %s first (and %d more), want only the real log message", m.Method, len(a.out))
	}
}
