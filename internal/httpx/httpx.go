// Package httpx builds the HTTP responses mcpc gives in a server's place:
// a session's DELETE it keeps, an answer it already holds, a client
// registration it stands in for. One builder, so that each looks to its
// reader (the SDK, the oauth2 package) as net/http would have returned it
// from the wire.
package httpx

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
)

// Response is an HTTP/1.1 answer to req with status and body; contentType,
// when not empty, is its Content-Type.
func Response(req *http.Request, status int, contentType string, body []byte) *http.Response {
	resp := &http.Response{
		Status:     fmt.Sprintf("%d %s", status, http.StatusText(status)),
		StatusCode: status,
		Proto:      "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:        http.Header{},
		Body:          http.NoBody,
		ContentLength: int64(len(body)),
		Request:       req,
	}
	if contentType != "" {
		resp.Header.Set("Content-Type", contentType)
	}
	if len(body) > 0 {
		resp.Body = io.NopCloser(bytes.NewReader(body))
	}
	return resp
}
