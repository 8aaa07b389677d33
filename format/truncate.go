package format

import (
	"bytes"
	"encoding/json"
)

// Smallest bounds TruncateJSON honours: below them not even a marker object
// fits, so smaller requests are raised to these.
const (
	MinMaxBytes = 64
	MinMaxLines = 3
)

// TruncateJSON renders doc indented by two spaces and ending in a newline,
// within maxBytes bytes and maxLines newlines, keeping its shape: long strings
// are cut on a rune boundary and end in "…[truncated]", arrays and objects keep
// a prefix of their elements, and nesting beyond what fits is shown empty. When
// the top-level value is an object and marker is not nil, marker is added as its
// last key "_mcpc" so that a reader of stdout alone can tell the result is
// incomplete; for other top-level values the marker is dropped and the caller's
// note on stderr carries it.
//
// A doc that fits comes back unchanged apart from indentation. Bounds below
// MinMaxBytes and MinMaxLines are raised to them. A doc that is not valid JSON
// yields "null\n".
func TruncateJSON(doc []byte, maxBytes, maxLines int, marker map[string]any) []byte {
	root, err := parseJSON(doc)
	if err != nil {
		return []byte("null\n")
	}
	return truncateTree(root, maxBytes, maxLines, marker)
}

// truncateTree is TruncateJSON on a parsed document. It looks for the largest
// single budget k (4k runes per string, k elements per container, depth k)
// whose rendering fits, by binary search, re-rendering the parsed tree rather
// than re-parsing; a rendering stops as soon as it exceeds the limits, so each
// try costs about the output size. The size is not strictly monotonic in the
// budget (a string just over the budget grows by the "…[truncated]" suffix), so
// the search may settle on a slightly smaller budget than the best, but
// whatever it returns has been rendered and measured.
func truncateTree(root *node, maxBytes, maxLines int, marker map[string]any) []byte {
	maxBytes = max(maxBytes, MinMaxBytes)
	maxLines = max(maxLines, MinMaxLines)

	try := func(budget int, marker []byte, markerLines int) ([]byte, bool) {
		r := renderer{
			limitBytes:  maxBytes - 1, // room for the final newline
			limitLines:  maxLines - 1,
			budget:      budget,
			marker:      marker,
			markerLines: markerLines,
		}
		r.value(root, 0)
		if r.over {
			return nil, false
		}
		return append(r.buf, '\n'), true
	}

	if out, ok := try(-1, nil, 0); ok {
		return out
	}

	var m []byte
	var mLines int
	if root.kind == nodeObject && marker != nil {
		m, mLines = renderMarker(marker)
	}
	best, ok := try(0, m, mLines)
	if !ok {
		// Only a top-level object whose marker alone is too big, a short
		// string spelled with long escapes (kept whole at budget 0) or a number
		// literal longer than the limit gets here.
		switch root.kind {
		case nodeObject:
			return []byte("{}\n")
		case nodeString:
			return append(appendQuoted(nil, truncatedSuffix), '\n')
		}
		return []byte("null\n")
	}
	lo, hi := 0, budgetSpan(root, 0)
	for lo < hi {
		mid := lo + (hi-lo+1)/2
		if out, ok := try(mid, m, mLines); ok {
			lo, best = mid, out
		} else {
			hi = mid - 1
		}
	}
	return best
}

// renderMarker renders marker as the value of a key at depth 1.
func renderMarker(marker map[string]any) ([]byte, int) {
	var compact bytes.Buffer
	enc := json.NewEncoder(&compact)
	enc.SetEscapeHTML(false) // file paths read better without \u003c
	if err := enc.Encode(marker); err != nil {
		return nil, 0
	}
	var out bytes.Buffer
	if err := json.Indent(&out, bytes.TrimSpace(compact.Bytes()), "  ", "  "); err != nil {
		return nil, 0
	}
	return out.Bytes(), bytes.Count(out.Bytes(), []byte{'\n'})
}

// budgetSpan returns a budget large enough to render n in full, given the
// longest string (its JSON text length bounds its runes), the longest container
// and the depth.
func budgetSpan(n *node, depth int) int {
	switch n.kind {
	case nodeString:
		return len(n.raw)/stringRunesPerBudget + 1
	case nodeArray, nodeObject:
		span := max(len(n.kids), depth+1)
		for _, k := range n.kids {
			span = max(span, budgetSpan(k, depth+1))
		}
		if r := n.rest; r != nil {
			span = max(span, len(n.kids)+r.count, r.maxLen, r.maxStr)
			if r.maxDepth > 0 {
				span = max(span, depth+r.maxDepth+1)
			}
		}
		return span
	}
	return 0
}
