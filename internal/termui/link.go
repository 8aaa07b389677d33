package termui

import (
	"encoding/json"
	"fmt"
	"io"
)

// ShowLink prints an authorization link at once, on w (stderr: stdout
// keeps one document, the login's result), as a JSON object when jsonMode
// is set.
func ShowLink(w io.Writer, jsonMode bool, link string) {
	if jsonMode {
		// No HTML escaping: the link's "&" stays "&" for whoever reads it.
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		enc.Encode(map[string]string{"authorizationUrl": link})
		return
	}
	fmt.Fprintf(w, "mcpc: open this link in a browser to authorize mcpc:\n%s\n", link)
}
