// Package completions is mcpc's shell completion: the scripts for bash, zsh,
// fish and PowerShell, and Complete, which works out the candidates for a
// partly typed command line from the command tree. The scripts hand the
// words to `mcpc __complete -- WORDS…` and offer what it prints, so every
// shell gets the same answers, names of servers and tools included.
package completions
