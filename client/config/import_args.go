package config

import (
	"slices"
	"strings"

	"github.com/mcpc-dev/mcpc/internal/fail"
)

// SetArgs reads 'mcpc config import [APP | FILE]' into im: args (at most
// one, the APP or FILE) and the --only values, each a comma-separated
// list of names. --only and im.From need an APP or FILE, and From must
// name an app mcpc reads.
func (im *Import) SetArgs(args, only []string) error {
	for _, v := range only {
		for _, n := range strings.Split(v, ",") {
			if n = strings.TrimSpace(n); n != "" {
				im.Only = append(im.Only, n)
			}
		}
	}
	switch {
	case len(args) > 1:
		return fail.New(fail.Usage, "", "unexpected argument %q", args[1])
	case len(args) == 1:
		im.Arg = args[0]
	case len(im.Only) > 0 || im.From != "":
		return fail.New(fail.Usage, "mcpc config import APP --only NAME", "--only and --from need an APP or FILE")
	}
	if im.From != "" && !slices.Contains(ImportApps, im.From) {
		return fail.New(fail.Usage, "use one of "+strings.Join(ImportApps, ", "), "unknown --from app %q", im.From)
	}
	return nil
}
