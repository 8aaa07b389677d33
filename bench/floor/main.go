// Command floor is the least any MCP client must do for one request to a
// stdio server: start it, write JSON-RPC lines to its stdin by hand, copy
// the response to stdout and close. bench/run measures mcpc against it.
//
//	floor [-list] [-call-only] [-legacy] [-tool echo] [-args '{"text":"hello"}'] [-repeat N] SERVER [ARGS...]
//	floor -url URL [-list] [-tool echo] [-args …]
//
// A 2026-07-28 exchange is server/discover then the request; -call-only
// skips the discover (what a client that remembers the server's era needs);
// -legacy speaks 2025-11-25 (initialize, initialized, request). With -url it
// POSTs the one 2026-07-28 request a client that remembers the server needs
// to a Streamable HTTP endpoint instead. With -socket it connects to an
// mcpc session's Unix socket (the server already running, held) and makes
// the exchange an invocation through the session makes there: the
// handshake its holder answers, then the request.
//
//	floor -socket PATH [-legacy] [-list] [-tool echo] [-args …]
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
)

const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
	`"io.modelcontextprotocol/clientCapabilities":{},` +
	`"io.modelcontextprotocol/clientInfo":{"name":"floor","version":"0"}}`

func main() {
	list := flag.Bool("list", false, "send tools/list instead of tools/call")
	callOnly := flag.Bool("call-only", false, "skip server/discover (2026-07-28 only)")
	legacy := flag.Bool("legacy", false, "speak 2025-11-25: initialize first")
	tool := flag.String("tool", "echo", "tool to call")
	args := flag.String("args", `{"text":"hello"}`, "tool arguments (JSON object)")
	url := flag.String("url", "", "POST one request to this Streamable HTTP endpoint")
	socket := flag.String("socket", "", "make the exchange on this mcpc session's Unix socket")
	repeat := flag.Int("repeat", 1, "send the request this many times over the one pipe, each after the last answer")
	flag.Parse()
	if *url != "" {
		post(*url, *list, *tool, *args)
		return
	}
	if *socket != "" {
		c, err := net.Dial("unix", *socket)
		check(err)
		exchange(c, bufio.NewReaderSize(c, 64<<10), *list, *callOnly, *legacy, *tool, *args, *repeat)
		check(c.Close())
		return
	}
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: floor [flags] SERVER [ARGS...]")
		os.Exit(2)
	}
	cmd := exec.Command(flag.Arg(0), flag.Args()[1:]...)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	check(err)
	out, err := cmd.StdoutPipe()
	check(err)
	check(cmd.Start())
	exchange(in, bufio.NewReaderSize(out, 64<<10), *list, *callOnly, *legacy, *tool, *args, *repeat)
	in.Close()
	check(cmd.Wait())
}

// exchange writes the handshake and the request to in and copies each
// answer from r to stdout.
func exchange(in io.Writer, r *bufio.Reader, list, callOnly, legacy bool, tool, args string, repeat int) {
	modern := true // requests carry the 2026-07-28 _meta envelope
	switch {
	case legacy:
		send(in, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"floor","version":"0"}}}`)
		skipLine(r)
		send(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		modern = false
	case !callOnly:
		send(in, `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{`+meta+`}}`)
		skipLine(r)
	}
	var params []string
	if !list {
		params = append(params, `"name":"`+tool+`"`, `"arguments":`+args)
	}
	if modern {
		params = append(params, meta)
	}
	method := "tools/call"
	if list {
		method = "tools/list"
	}
	w := bufio.NewWriterSize(os.Stdout, 64<<10)
	for i := range repeat {
		send(in, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"%s","params":{%s}}`, i+2, method, strings.Join(params, ",")))
		copyLine(w, r)
	}
	check(w.Flush())
}

func post(url string, list bool, tool, args string) {
	method, params, name := "tools/call", `"name":"`+tool+`","arguments":`+args+`,`+meta, tool
	if list {
		method, params, name = "tools/list", meta, ""
	}
	req, err := http.NewRequest("POST", url, strings.NewReader(`{"jsonrpc":"2.0","id":2,"method":"`+method+`","params":{`+params+`}}`))
	check(err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	if name != "" {
		req.Header.Set("Mcp-Name", name)
	}
	resp, err := http.DefaultClient.Do(req)
	check(err)
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		check(fmt.Errorf("HTTP %s", resp.Status))
	}
	_, err = io.Copy(os.Stdout, resp.Body)
	check(err)
}

func send(w io.Writer, line string) {
	_, err := io.WriteString(w, line+"\n")
	check(err)
}

// skipLine reads one response line and drops it.
func skipLine(r *bufio.Reader) {
	for {
		_, err := r.ReadSlice('\n')
		if err == nil {
			return
		}
		if err != bufio.ErrBufferFull {
			check(err)
		}
	}
}

// copyLine streams the response (the first line carrying an id) to w
// without holding it all in memory, as a client that prints as it reads
// would.
func copyLine(w io.Writer, r *bufio.Reader) {
	for {
		first := true
		isResponse := false
		for {
			chunk, err := r.ReadSlice('\n')
			if first {
				isResponse = bytes.Contains(chunk, []byte(`"id":`))
				first = false
			}
			if isResponse {
				_, werr := w.Write(chunk)
				check(werr)
			}
			if err == nil {
				break
			}
			if err != bufio.ErrBufferFull {
				check(err)
			}
		}
		if isResponse {
			return
		}
	}
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(1)
	}
}
