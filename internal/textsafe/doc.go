// Package textsafe makes text from a server safe to show: escape sequences
// and controls stripped (whole, or streamed through a Stripper), text kept on
// one line, measured and clipped in terminal columns, names quoted when they
// are not plain (Name), and notes printed with all of that applied. It is a leaf: every printer of server text uses it,
// from the transport's evidence to the terminal prompts, and it imports no
// package of this module.
package textsafe
