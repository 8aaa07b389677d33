package testserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// The events extension's push delivery (events/stream), as the draft
// has it: notifications/events/active, then each event of the type from
// the events FILE as notifications/events/event with the cursor after
// it, and a notifications/events/heartbeat every --heartbeat carrying
// the cursor checked up to; every notification names the stream's
// request id in _meta. alert.raised's cursor is a line number (it
// replays); metric.sampled's is always null and its stream starts from
// now. A control line of the type makes the stream that reaches it go
// silent without closing (once per process: "silence"), send a
// notifications/events/error and go on ("error"), or send
// notifications/events/terminated and end ("terminate"). Each stream's
// opening (with the cursor it was sent) and end (how) is a line of
// FILE.streams, which the tests read.

// subscriptionMeta is the draft's correlation key.
const subscriptionMeta = "io.modelcontextprotocol/subscriptionId"

// pushTypes are the event types that push; replays says which replay.
var pushTypes = map[string]bool{"alert.raised": true, "metric.sampled": false}

// openStream checks an events/stream request: its name and cursor, or
// the JSON-RPC error it is answered with at once (no stream is opened).
func (st *eventsStore) openStream(req *jsonrpc.Request) (name string, from int, err *jsonrpc.Error) {
	var p struct {
		Name   string  `json:"name"`
		Cursor *string `json:"cursor"`
	}
	if e := json.Unmarshal(req.Params, &p); e != nil {
		return "", 0, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: e.Error()}
	}
	replays, ok := pushTypes[p.Name]
	switch {
	case p.Name == "deploy.finished":
		return "", 0, &jsonrpc.Error{Code: -32014, Message: "Unsupported", Data: json.RawMessage(`{"feature":"deliveryMode","value":"push"}`)}
	case !ok:
		return "", 0, &jsonrpc.Error{Code: -32011, Message: "NotFound", Data: json.RawMessage(`{"kind":"event"}`)}
	}
	lines, e := readEventLines(st.file)
	if e != nil {
		return "", 0, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: e.Error()}
	}
	from = len(lines)
	if p.Cursor != nil && replays {
		n, e := strconv.Atoi(*p.Cursor)
		if e != nil || n < 0 || n > len(lines) {
			return "", 0, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown cursor %q", *p.Cursor)}
		}
		from = n
	}
	cursor := "null"
	if p.Cursor != nil {
		cursor = strconv.Quote(*p.Cursor)
	}
	st.log("open %s %s cursor=%s", p.Name, idText(req.ID), cursor)
	return p.Name, from, nil
}

func idText(id jsonrpc.ID) string {
	b, _ := json.Marshal(id.Raw())
	return string(b)
}

// log appends one line to FILE.streams.
func (st *eventsStore) log(format string, args ...any) {
	st.logMu.Lock()
	defer st.logMu.Unlock()
	f, err := os.OpenFile(st.file+".streams", os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return
	}
	fmt.Fprintf(f, format+"\n", args...)
	f.Close()
}

// push serves an opened stream through send until done is closed (the
// client cancelled or hung up: nil) or a control line terminates it (the
// final result, to send). send's error (the client is gone) ends it too.
func (st *eventsStore) push(req *jsonrpc.Request, name string, at int, send func(jsonrpc.Message) error, done <-chan struct{}) *jsonrpc.Response {
	replays := pushTypes[name]
	meta := map[string]any{subscriptionMeta: req.ID.Raw()}
	cursor := func(at int) any {
		if replays {
			return strconv.Itoa(at)
		}
		return nil
	}
	note := func(method string, params map[string]any) error {
		params["_meta"] = meta
		raw, _ := json.Marshal(params)
		return send(&jsonrpc.Request{Method: method, Params: raw})
	}
	if note("notifications/events/active", map[string]any{"cursor": cursor(at), "truncated": false}) != nil {
		return nil
	}
	tick := time.NewTicker(st.heartbeat)
	defer tick.Stop()
	beats := 0
	for {
		lines, _ := readEventLines(st.file)
		for ; at < len(lines); at++ {
			var e eventLine
			if json.Unmarshal(lines[at], &e) != nil || e.Name != name {
				continue
			}
			switch e.Control {
			case "":
				ev := map[string]any{"eventId": fmt.Sprintf("evt_%d", at+1), "name": name,
					"timestamp": fmt.Sprintf("2026-12-01T00:00:%02dZ", (at+1)%60), "data": e.Data, "cursor": cursor(at + 1)}
				if note("notifications/events/event", ev) != nil {
					return nil
				}
			case "silence":
				if _, obeyed := st.silenced.LoadOrStore(at, true); !obeyed {
					st.log("silent %s %s", name, idText(req.ID))
					<-done
					st.log("end %s %s: cancelled", name, idText(req.ID))
					return nil
				}
			case "error":
				note("notifications/events/error", map[string]any{"error": map[string]any{"code": -32603, "message": "UpstreamError", "data": map[string]any{"reason": "upstream answered 503"}}})
			case "terminate":
				note("notifications/events/terminated", map[string]any{"error": map[string]any{"code": -32012, "message": "Forbidden", "data": map[string]any{"reason": "Access revoked"}}})
				st.log("end %s %s: terminated", name, idText(req.ID))
				return &jsonrpc.Response{ID: req.ID, Result: json.RawMessage(`{"_meta":{}}`)}
			}
		}
		select {
		case <-done:
			st.log("end %s %s: cancelled", name, idText(req.ID))
			return nil
		case <-tick.C:
			if note("notifications/events/heartbeat", map[string]any{"cursor": cursor(at)}) != nil {
				return nil
			}
			if beats++; beats == 2 {
				// A test waits for this line, not a clock, before it
				// makes the stream go silent: by then the client has a
				// gap between two heartbeats to measure.
				st.log("beats %s %s", name, idText(req.ID))
			}
		}
	}
}

// pushStreams are a stdio server's push streams open, by request id, so
// that notifications/cancelled ends the one it names.
type pushStreams struct {
	mu   sync.Mutex
	open map[string]chan struct{}
}

// stdioStream serves an events/stream request on stdio in the
// background; false when req is none.
func (c *faultConn) stdioStream(ctx context.Context, req *jsonrpc.Request) bool {
	st := c.t.opts.events
	if st == nil || req.Method != "events/stream" || !req.IsCall() {
		return false
	}
	name, at, rpcErr := st.openStream(req)
	if rpcErr != nil {
		c.Write(ctx, &jsonrpc.Response{ID: req.ID, Error: rpcErr})
		return true
	}
	done := make(chan struct{})
	c.streams.mu.Lock()
	if c.streams.open == nil {
		c.streams.open = map[string]chan struct{}{}
	}
	c.streams.open[idText(req.ID)] = done
	c.streams.mu.Unlock()
	go func() {
		send := func(m jsonrpc.Message) error { return c.Write(context.Background(), m) }
		if resp := st.push(req, name, at, send, done); resp != nil {
			send(resp)
		}
	}()
	return true
}

// cancelStream ends the stream a notifications/cancelled names; false
// when it names none.
func (c *faultConn) cancelStream(req *jsonrpc.Request) bool {
	if req.Method != "notifications/cancelled" || c.t.opts.events == nil {
		return false
	}
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	json.Unmarshal(req.Params, &p)
	c.streams.mu.Lock()
	defer c.streams.mu.Unlock()
	done, ok := c.streams.open[string(p.RequestID)]
	if ok {
		delete(c.streams.open, string(p.RequestID))
		close(done)
	}
	return ok
}

// httpStream serves an events/stream request as the POST's event
// stream, until the client aborts it; false when req is none.
func (h *faultHandler) httpStream(w http.ResponseWriter, r *http.Request, req *jsonrpc.Request) bool {
	st := h.opts.events
	if st == nil || req.Method != "events/stream" || !req.IsCall() {
		return false
	}
	name, at, rpcErr := st.openStream(req)
	if rpcErr != nil {
		writeResponse(w, &jsonrpc.Response{ID: req.ID, Error: rpcErr})
		return true
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	var mu sync.Mutex
	send := func(m jsonrpc.Message) error {
		data, err := jsonrpc.EncodeMessage(m)
		if err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		if _, err := fmt.Fprintf(w, "data: %s\n\n", data); err != nil {
			return err
		}
		if flusher != nil {
			flusher.Flush()
		}
		return nil
	}
	done := make(chan struct{})
	go func() {
		select {
		case <-r.Context().Done():
		case <-h.stop:
		}
		close(done)
	}()
	if resp := st.push(req, name, at, send, done); resp != nil {
		send(resp)
	}
	return true
}
