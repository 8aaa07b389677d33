package format

import "github.com/mcpc-dev/mcpc/internal/textsafe"

// CardRow is one server mcpc discover found, as its text shows it: plain
// values, as format knows no type of the client's. Error, when set, is
// why the server's card could not be read; Name is then the catalog
// entry's identifier.
type CardRow struct {
	Name, Title, Version, Transport, URL, Error string
}

// CardsText is mcpc discover's table: a server a line, its values from a
// host anyone may run, stripped and on one line each. width is the
// terminal's (0: a pipe, nothing cut).
func CardsText(rows []CardRow, width int) []byte {
	cells := make([][]string, 0, len(rows))
	for _, r := range rows {
		line := []string{r.Name, r.Title, r.Version, r.Transport, r.URL}
		if r.Error != "" {
			line = []string{r.Name, "", "", "", "error: " + r.Error}
		}
		for i, c := range line {
			line[i] = textsafe.OneLine(c)
			if line[i] == "" {
				line[i] = "-"
			}
		}
		cells = append(cells, line)
	}
	return []byte(table([]string{"NAME", "TITLE", "VERSION", "TRANSPORT", "URL"}, cells, width))
}
