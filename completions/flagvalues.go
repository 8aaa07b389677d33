package completions

// FlagValues are the values offered for those of mcpc's own flags that
// take a file or one of a fixed set; protocols are what --protocol takes.
func FlagValues(flag string, protocols []string) []Candidate {
	switch flag {
	case "config":
		return Files
	case "server-stderr":
		return []Candidate{{Value: "show", Description: "pass it to stderr"}, {Value: "hide", Description: "drop it"}}
	case "protocol":
		return Words(protocols, "")
	}
	return nil
}

// Words are candidates for words, each described as desc.
func Words(words []string, desc string) []Candidate {
	var out []Candidate
	for _, w := range words {
		out = append(out, Candidate{Value: w, Description: desc})
	}
	return out
}
