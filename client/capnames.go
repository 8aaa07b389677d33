package client

import (
	"maps"
	"slices"
	"strings"

	"github.com/mcpc-dev/mcpc/client/conn"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// CapabilityNames names what the server declares, with the optional
// features of each in parentheses: "tools (listChanged)", "resources
// (subscribe)", "prompts", "logging", "tasks". Names the server chose
// (extensions, experimental) are given as it wrote them: the printer
// makes them safe.
func CapabilityNames(c *mcp.ServerCapabilities) []string {
	if c == nil {
		return nil
	}
	type feature struct {
		on   bool
		name string
	}
	var words []string
	add := func(name string, features ...feature) {
		var on []string
		for _, f := range features {
			if f.on {
				on = append(on, f.name)
			}
		}
		if len(on) > 0 {
			name += " (" + strings.Join(on, ", ") + ")"
		}
		words = append(words, name)
	}
	if t := c.Tools; t != nil {
		add("tools", feature{t.ListChanged, "listChanged"})
	}
	if r := c.Resources; r != nil {
		add("resources", feature{r.Subscribe, "subscribe"}, feature{r.ListChanged, "listChanged"})
	}
	if p := c.Prompts; p != nil {
		add("prompts", feature{p.ListChanged, "listChanged"})
	}
	if c.Completions != nil {
		add("completions")
	}
	//lint:ignore SA1019 deprecated in 2026-07-28, yet what a 2025 server declares
	if c.Logging != nil {
		add("logging")
	}
	// The 2026-07-28 tasks extension is the tasks capability of that era.
	if _, ok := c.Extensions[conn.TaskExtension]; ok {
		add("tasks")
	}
	for _, name := range slices.Sorted(maps.Keys(c.Extensions)) {
		if name != conn.TaskExtension {
			add(name)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(c.Experimental)) {
		add(name + " (experimental)")
	}
	return words
}
