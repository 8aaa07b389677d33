package config

import "github.com/mcpc-dev/mcpc/internal/fail"

// Target splits a command's positional arguments into the SERVER argument
// and the rest. With --stdio or -- the server is on the command line, so
// there is no SERVER word (and a URL there is refused, not ignored).
func (a AdHoc) Target(args []string) (server string, rest []string, err error) {
	if a.IsStdio() {
		if len(args) > 0 && IsURL(args[0]) {
			return "", nil, fail.New(fail.Usage, "", "give either a server URL or a --stdio command, not both")
		}
		return "", args, nil
	}
	if len(args) == 0 {
		return "", nil, fail.New(fail.Usage, "name a configured server, an https:// URL, or give --stdio 'command args'", "missing SERVER")
	}
	return args[0], args[1:], nil
}
