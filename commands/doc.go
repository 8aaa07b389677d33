// Package commands is mcpc's command line: one file per subcommand, a single
// root command tree shared by main, the man page, completions and tests, and
// the one place (exitcodes.go) where errors become exit codes.
//
// Each action fills an options struct from flags and arguments, validates it
// before any I/O, then calls a run function with its dependencies injected
// through Env.
package commands
