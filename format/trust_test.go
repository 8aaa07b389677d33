package format

import "testing"

// A trusted file's servers are listed one a line, what each reaches or
// runs with the escapes a hostile file could hide in it stripped.
func TestTrusted(t *testing.T) {
	got := string(Trusted("/p/.mcp.json", "0123456789abcdef", []TrustedServer{
		{Name: "a", Transport: "http", URL: "https://x.example/mcp"},
		{Name: "b", Transport: "stdio", Command: "srv", Args: []string{"--x", "\x1b[2Jy"}},
	}))
	want := "trusted /p/.mcp.json (sha256 0123456789ab)\n" +
		"  a (http): https://x.example/mcp\n" +
		"  b (stdio): srv --x y\n"
	if got != want {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
}
