package format

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"mime"
	"strings"

	"github.com/mcpc-dev/mcpc/internal/textsafe"
)

// mediaPass moves large or excess base64 payloads out of the document before
// it is printed: a few screenshots are useful inline, but dozens of megabytes
// of base64 would crowd out everything else within the output bounds.
//
// Image and audio content ({"type":"image"|"audio","data":...}) counts against
// MaxMedia and MaxMediaBytes; resource blobs ({"uri":...,"blob":...}, as in
// embedded resources and resources/read results) only against MaxMediaBytes.
// A payload that leaves loses its "data" (or "blob") key in favour of
// "dataFile" and "dataBytes" ("blobFile", "blobBytes"), or "dataOmitted":true
// ("blobOmitted") when there is no overflow directory or it is not base64.
type mediaPass struct {
	opts    Options
	notes   io.Writer
	inline  int // image/audio items kept inline so far
	changed bool
}

func (m *mediaPass) walk(n *node) error {
	switch n.kind {
	case nodeArray:
		for _, k := range n.kids {
			if err := m.walk(k); err != nil {
				return err
			}
		}
		return nil
	case nodeObject:
	default:
		return nil
	}
	typ, _ := n.getString("type")
	if typ == "image" || typ == "audio" {
		if d := n.get("data"); d != nil && d.kind == nodeString {
			return m.extract(n, typ, "data", true)
		}
	}
	if b := n.get("blob"); b != nil && b.kind == nodeString {
		if _, ok := n.getString("uri"); ok {
			return m.extract(n, "blob", "blob", false)
		}
	}
	for _, k := range n.kids {
		if err := m.walk(k); err != nil {
			return err
		}
	}
	return nil
}

// extract handles the payload under key of object n. what names it in notes
// and file names; counted says whether it uses one of the MaxMedia slots.
func (m *mediaPass) extract(n *node, what, key string, counted bool) error {
	idx := -1
	for i, k := range n.keys {
		if keyIs(k, key) {
			idx = i
			break
		}
	}
	b64 := n.kids[idx].str()
	mimeType, _ := n.getString("mimeType")
	fits := len(b64) <= m.opts.MaxMediaBytes
	if counted {
		fits = fits && m.inline < m.opts.MaxMedia
		// On a terminal base64 is useless: every image and sound goes to
		// a file the user can open. (A --query asks for the JSON as is.)
		if m.opts.Mode == ModeText && m.opts.Query == "" && m.opts.Overflow != nil {
			fits = false
		}
	}
	if fits {
		if counted {
			m.inline++
		}
		return nil
	}

	m.changed = true
	desc := what
	if mimeType != "" {
		desc += " (" + mimeType + ")"
	}
	data, ok := decodeBase64(b64)
	if !ok {
		replaceKey(n, idx, key+"Omitted", literalNode("true"))
		textsafe.Note(m.notes, "%s omitted: its data is not valid base64", desc)
		return nil
	}
	size := fmt.Sprintf("%s, %d bytes", what, len(data))
	if mimeType != "" {
		size = fmt.Sprintf("%s (%s, %d bytes)", what, mimeType, len(data))
	}
	path, err := "", ErrTooLarge
	if m.opts.Overflow != nil {
		path, err = m.opts.Overflow.Save(what, mediaSuffix(mimeType), data)
	}
	if err != nil {
		// Left out, not a failure: the tool ran and the rest of its
		// result is printed.
		replaceKey(n, idx, key+"Omitted", literalNode("true"), key+"Bytes", intNode(len(data)))
		why := "too large or too many to show inline"
		if m.opts.Overflow != nil && !errors.Is(err, ErrTooLarge) {
			why = "not saved (" + m.opts.Overflow.unsavedBecause(err) + ")"
		}
		textsafe.Note(m.notes, "%s omitted: %s", size, why)
		return nil
	}
	replaceKey(n, idx, key+"File", stringNode(path), key+"Bytes", intNode(len(data)))
	textsafe.Note(m.notes, "%s saved to %s", size, path)
	return nil
}

// replaceKey replaces the member at idx of object n with the given key/value
// pairs, in place, so the document keeps its order.
func replaceKey(n *node, idx int, kv ...any) {
	var keys [][]byte
	var kids []*node
	for i := 0; i < len(kv); i += 2 {
		keys = append(keys, appendQuoted(nil, kv[i].(string)))
		kids = append(kids, kv[i+1].(*node))
	}
	n.keys = append(n.keys[:idx:idx], append(keys, n.keys[idx+1:]...)...)
	n.kids = append(n.kids[:idx:idx], append(kids, n.kids[idx+1:]...)...)
}

// decodeBase64 accepts standard base64 with or without padding; servers differ.
func decodeBase64(s string) ([]byte, bool) {
	if b, err := base64.StdEncoding.DecodeString(s); err == nil {
		return b, true
	}
	if b, err := base64.RawStdEncoding.DecodeString(s); err == nil {
		return b, true
	}
	return nil, false
}

// decodedSize is the byte size a base64 payload stands for, for summaries of
// media that stay inline; for invalid base64 it estimates.
func decodedSize(s string) int {
	if b, ok := decodeBase64(s); ok {
		return len(b)
	}
	return len(s) * 3 / 4
}

// mediaSuffix picks a file name suffix so that the saved file opens in the
// right viewer.
func mediaSuffix(mimeType string) string {
	t, _, err := mime.ParseMediaType(mimeType)
	if err != nil {
		t = strings.ToLower(strings.TrimSpace(mimeType))
	}
	switch t {
	case "image/png":
		return ".png"
	case "image/jpeg", "image/jpg":
		return ".jpg"
	case "image/gif":
		return ".gif"
	case "image/webp":
		return ".webp"
	case "audio/wav", "audio/wave", "audio/x-wav", "audio/vnd.wave":
		return ".wav"
	case "audio/mpeg", "audio/mp3":
		return ".mp3"
	}
	return ".bin"
}
