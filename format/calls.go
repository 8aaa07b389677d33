// This file renders what call, --batch, task and reconnect print besides a
// result rendered by Write: a JSON Lines record, a task's line, and the
// summary of a handshake.

package format

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tidwall/gjson"

	"github.com/mcpc-dev/mcpc/internal/rawmsg"
	"github.com/mcpc-dev/mcpc/internal/textsafe"
	"github.com/mcpc-dev/mcpc/internal/urlx"
)

// Line renders one result, as the server sent it, as JSON on one line
// (a --batch record): opts apply but for the mode, which is JSON.
func Line(notes io.Writer, b []byte, opts Options) ([]byte, error) {
	var out bytes.Buffer
	opts.Mode = ModeJSON
	if err := Write(&out, notes, b, opts); err != nil {
		return nil, err
	}
	var line bytes.Buffer
	if err := json.Compact(&line, out.Bytes()); err != nil {
		return nil, err
	}
	return line.Bytes(), nil
}

// TaskLine is a task in text mode: id, status, message, one line.
func TaskLine(id, status, message string) string {
	line := id + "  " + status
	if message != "" {
		line += "  " + textsafe.OneLine(message)
	}
	return textsafe.StripControl(line) + "\n"
}

// CancelLine is the answer to tasks/cancel, id the task asked about: the
// task's line when the server answered with the task (2025), else that
// the cancellation was asked for — a 2026-07-28 server acknowledges with
// an empty result, and the task may still end otherwise.
func CancelLine(id string, raw []byte) string {
	if res := rawmsg.View(raw); res.Get("taskId").String() != "" {
		return TaskLine(id, res.Get("status").String(), res.Get("statusMessage").String())
	}
	return textsafe.StripControl(id) + " cancel requested\n"
}

// TaskLines is a task list's tasks (a tasks/list result), a TaskLine each.
func TaskLines(doc []byte) string {
	var b strings.Builder
	rawmsg.View(doc).Get("tasks").ForEach(func(_, it gjson.Result) bool {
		b.WriteString(TaskLine(it.Get("taskId").String(), it.Get("status").String(), it.Get("statusMessage").String()))
		return true
	})
	return b.String()
}

// Summary is what a handshake said (r; caps its capabilities' names), with
// how mcpc reached the server: url, empty for stdio, over HTTP+SSE when sse.
func Summary(r *mcp.InitializeResult, caps []string, url string, sse bool) ServerSummary {
	s := ServerSummary{Protocol: r.ProtocolVersion, Transport: "stdio", Capabilities: caps, Instructions: r.Instructions}
	if r.ServerInfo != nil {
		s.Name, s.Version = r.ServerInfo.Name, r.ServerInfo.Version
	}
	switch {
	case sse:
		s.Transport = "HTTP+SSE, " + urlx.Redact(url)
	case url != "":
		s.Transport = "Streamable HTTP, " + urlx.Redact(url)
	}
	return s
}

// Ping is what mcpc ping prints: the server, the revision it speaks, and
// the round trip in milliseconds, to the hundredth.
type Ping struct {
	Server   string  `json:"server"`
	Revision string  `json:"revision"`
	MS       float64 `json:"ms"`
}

// NewPing is the Ping of a round trip of rtt.
func NewPing(server, revision string, rtt time.Duration) Ping {
	return Ping{Server: server, Revision: revision, MS: math.Round(float64(rtt.Microseconds())/10) / 100}
}

// Text is ping's line.
func (p Ping) Text() string {
	return fmt.Sprintf("%s answered in %.2f ms (MCP %s)\n", textsafe.OneLine(p.Server), p.MS, p.Revision)
}

// Handshake is what a handshake said (r) as reconnect's --json prints it.
func Handshake(r *mcp.InitializeResult) map[string]any {
	return map[string]any{"serverInfo": r.ServerInfo, "protocolVersion": r.ProtocolVersion,
		"capabilities": r.Capabilities, "instructions": r.Instructions}
}
