package man

import (
	_ "embed"

	"github.com/urfave/cli/v3"
)

// Written holds the sections that describe mcpc's surroundings rather than
// its commands: ENVIRONMENT, FILES, SECURITY.
//
//go:embed sections.md
var Written string

// Page is what the manual is made of.
type Page struct {
	Root *cli.Command
	// Topics are the help topics (mcpc help TOPIC), printed as they are
	// on a terminal, each under its own heading.
	Topics []Section
	// Examples come from the commands' help.
	Examples []Example
}

// Section is a heading and its preformatted text.
type Section struct {
	Title string
	Text  string
}

// Example is one command line and what it does.
type Example struct {
	What string
	Line string
}

// Text is the committed manual page, man/mcpc.1, as mcpc man prints it.
// A test renders the page afresh and fails when this copy is stale.
//
//go:embed mcpc.1
var Text []byte
