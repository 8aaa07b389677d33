package config

// TransportPin is the HTTP transport the entry pins: "sse" (the 2024-11-05
// HTTP+SSE transport), "http" or "streamable-http" (Streamable HTTP, never
// falling back), or "" to let mcpc find out. The entry's "type" key sets
// it (see TypePin).
func (s *Server) TransportPin() string { return s.TypePin() }
