// Package elicit answers what a server asks for while a request runs
// (elicitation): from the command line's answers, with --yes, or by asking
// a person at the terminal field by field, each answer checked against the
// field's schema.
package elicit
