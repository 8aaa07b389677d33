package skills

import (
	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/fsx"
)

// Written says what Write put where: the skill's SKILL.md URI, the
// directory and each file as listed (path, URI, size, digest).
type Written struct {
	Skill string        `json:"skill"`
	Dir   string        `json:"dir"`
	Files []WrittenFile `json:"files"`
}

// WrittenFile is one file Write wrote.
type WrittenFile struct {
	Path   string `json:"path"`
	URI    string `json:"uri"`
	Size   int64  `json:"size"`
	Digest string `json:"digest,omitempty"`
}

// Write writes the verified files of skill e under dir, a directory that
// does not exist or is empty, all or nothing (fsx.WriteTree). A failure
// is a usage error: dir is the user's choice.
func Write(dir string, e *Entry, files []Fetched) (*Written, error) {
	tree := make([]fsx.TreeFile, len(files))
	out := &Written{Skill: e.URI, Dir: dir, Files: make([]WrittenFile, len(files))}
	for i, f := range files {
		tree[i] = fsx.TreeFile{Path: f.Path, Data: f.Data}
		out.Files[i] = WrittenFile{f.Path, f.URI, f.Size, f.Digest}
	}
	if err := fsx.WriteTree(dir, tree, 0o644); err != nil {
		return nil, fail.Wrap(fail.Usage, err, "name a new or empty directory", "cannot write skill %q: %v", e.Name, err)
	}
	return out, nil
}
