package config

// TransportPin is the one answer to which HTTP transport a server is
// pinned to: flag (--transport: "auto", "http", "sse"), when given, over
// the entry's "type". It is "sse" for the 2024-11-05 HTTP+SSE transport,
// "http" for Streamable HTTP (never falling back), or "" to let mcpc find
// out (no pin, "auto", or a stdio entry's own "type").
func (s *Server) TransportPin(flag string) string {
	p := flag
	if p == "" {
		switch t := s.Type; {
		case t == "sse":
			p = "sse"
		case t != "" && t != "stdio":
			p = "http" // "http", "streamable-http", "streamableHttp"
		}
	}
	switch p {
	case "auto":
		return ""
	case "streamable-http":
		return "http"
	}
	return p
}
