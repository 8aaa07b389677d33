package format

import (
	"fmt"
	"strings"

	"github.com/mcpc-dev/mcpc/internal/textsafe"
)

// TrustedServer is a server of a project file as 'mcpc trust' lists it:
// its URL, or the command it runs.
type TrustedServer struct {
	Name, Transport, URL, Command string
	Args                          []string
}

// Trusted is what 'mcpc trust' prints: the file, the start of its
// SHA-256, and a line for each server it lets run. What a server runs or
// reaches is stripped of escapes: it comes from a file the user did not
// write.
func Trusted(path, sha256 string, servers []TrustedServer) []byte {
	out := fmt.Appendf(nil, "trusted %s (sha256 %s)\n", path, sha256[:12])
	for _, s := range servers {
		what := s.URL
		if what == "" {
			what = strings.Join(append([]string{s.Command}, s.Args...), " ")
		}
		out = fmt.Appendf(out, "  %s (%s): %s\n", s.Name, s.Transport, textsafe.StripControl(what))
	}
	return out
}
