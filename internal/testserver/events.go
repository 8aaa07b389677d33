package testserver

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// The events extension (the draft "MCP Events — Design Sketch" of
// modelcontextprotocol/experimental-ext-triggers-events), poll delivery,
// served below the SDK, which has none: with --events FILE, events/list
// lists three event types and events/poll answers from FILE, one event a
// line ({"name": TYPE, "data": {…}}), which a test appends to. A cursor
// is a line number, so it survives the server: each invocation of a
// stdio server is a new process, and a watch --since-last goes on where
// the last one left off.
const eventsExtension = "io.modelcontextprotocol/events"

type eventsStore struct {
	file      string
	nextPoll  int64         // nextPollMs of every answer (--next-poll)
	heartbeat time.Duration // a push stream's heartbeat interval (--heartbeat)

	silenced sync.Map // the control lines "silence" a stream has obeyed (events_push.go)
	logMu    sync.Mutex
}

// eventTypes are what events/list answers: one that polls, one that
// polls and pushes, one pushed whose cursor is always null (it cannot be
// replayed), one that offers only webhooks (which mcpc does not follow).
const eventTypes = `{"events":[` +
	`{"name":"deploy.finished","description":"A deploy finished","delivery":["poll"],"inputSchema":{"type":"object"},"payloadSchema":{"type":"object"}},` +
	`{"name":"alert.raised","description":"An alert was raised","delivery":["push","poll"],"inputSchema":{"type":"object"},"payloadSchema":{"type":"object"}},` +
	`{"name":"metric.sampled","description":"A metric was sampled; no history","delivery":["push"],"inputSchema":{"type":"object"},"payloadSchema":{"type":"object"}},` +
	`{"name":"incident.created","description":"An incident was opened","delivery":["webhook"],"inputSchema":{"type":"object"},"payloadSchema":{"type":"object"}}]}`

// maxEventsDefault is how many events a poll answers without maxEvents.
const maxEventsDefault = 100

func (st *eventsStore) handle(req *jsonrpc.Request) *jsonrpc.Response {
	if st == nil || !req.IsCall() {
		return nil
	}
	switch req.Method {
	case "events/list":
		return &jsonrpc.Response{ID: req.ID, Result: json.RawMessage(eventTypes)}
	case "events/poll":
		res, err := st.poll(req.Params)
		if err != nil {
			return &jsonrpc.Response{ID: req.ID, Error: err}
		}
		return &jsonrpc.Response{ID: req.ID, Result: res}
	}
	return nil
}

// poll answers one events/poll: a null cursor is "from now" (no events,
// the cursor at the end), else the events of the type after the cursor's
// line, at most maxEvents, hasMore when some are left.
func (st *eventsStore) poll(params json.RawMessage) (json.RawMessage, *jsonrpc.Error) {
	var p struct {
		Name      string  `json:"name"`
		Cursor    *string `json:"cursor"`
		MaxEvents int     `json:"maxEvents"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
	}
	if p.Name == "metric.sampled" {
		return nil, &jsonrpc.Error{Code: -32014, Message: "Unsupported", Data: json.RawMessage(`{"feature":"deliveryMode","value":"poll"}`)}
	}
	if p.Name != "deploy.finished" && p.Name != "alert.raised" {
		return nil, &jsonrpc.Error{Code: -32011, Message: "NotFound", Data: json.RawMessage(`{"kind":"event"}`)}
	}
	lines, err := readEventLines(st.file)
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
	}
	from := len(lines)
	if p.Cursor != nil {
		n, err := strconv.Atoi(*p.Cursor)
		if err != nil || n < 0 || n > len(lines) {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown cursor %q", *p.Cursor)}
		}
		from = n
	}
	max := p.MaxEvents
	if max <= 0 {
		max = maxEventsDefault
	}
	events, at := []json.RawMessage{}, from
	for ; at < len(lines) && len(events) < max; at++ {
		var e eventLine
		if json.Unmarshal(lines[at], &e) != nil || e.Name != p.Name || e.Control != "" {
			continue
		}
		ev, _ := json.Marshal(map[string]any{"eventId": fmt.Sprintf("evt_%d", at+1), "name": e.Name,
			"timestamp": fmt.Sprintf("2026-12-01T00:00:%02dZ", (at+1)%60), "data": e.Data})
		events = append(events, ev)
	}
	more := false
	for i := at; i < len(lines) && !more; i++ {
		var e eventLine
		more = json.Unmarshal(lines[i], &e) == nil && e.Name == p.Name && e.Control == ""
	}
	res, _ := json.Marshal(map[string]any{"events": events, "cursor": strconv.Itoa(at), "truncated": false, "hasMore": more, "nextPollMs": st.nextPoll})
	return res, nil
}

// eventLine is one line of the events FILE: an event of the type Name,
// or, with Control, what a push stream of that type does there (silence,
// error, terminate; events_push.go), which a poll skips.
type eventLine struct {
	Name    string          `json:"name"`
	Data    json.RawMessage `json:"data"`
	Control string          `json:"control"`
}

// readEventLines reads FILE's lines (none when it does not exist yet).
func readEventLines(file string) ([][]byte, error) {
	f, err := os.Open(file)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var lines [][]byte
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		lines = append(lines, append([]byte(nil), sc.Bytes()...))
	}
	return lines, sc.Err()
}
