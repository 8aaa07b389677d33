package httpx

import (
	"io"
	"net/http"
	"testing"
)

func TestResponse(t *testing.T) {
	req, _ := http.NewRequest(http.MethodPost, "https://h.example/register", nil)
	resp := Response(req, http.StatusCreated, "application/json", []byte(`{"client_id":"c"}`))
	body, _ := io.ReadAll(resp.Body)
	if resp.Status != "201 Created" || resp.StatusCode != 201 || resp.Proto != "HTTP/1.1" || resp.ProtoMajor != 1 || resp.ProtoMinor != 1 ||
		resp.Header.Get("Content-Type") != "application/json" || len(resp.Header) != 1 ||
		resp.ContentLength != 17 || string(body) != `{"client_id":"c"}` || resp.Request != req {
		t.Errorf("Response = %+v, body %q", resp, body)
	}
	empty := Response(req, http.StatusNoContent, "", nil)
	if empty.Status != "204 No Content" || empty.Body != http.NoBody || empty.ContentLength != 0 || empty.Header == nil || len(empty.Header) != 0 {
		t.Errorf("empty Response = %+v", empty)
	}
}
