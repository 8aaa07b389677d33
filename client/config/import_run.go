package config

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/fsx"
	"github.com/mcpc-dev/mcpc/internal/textsafe"
)

// Import is one `mcpc config import`: which files to read, which of their
// servers to take, and the file they go to. What it has to say on the way
// goes to Note, which is the caller's (this package prints nothing).
type Import struct {
	Arg         string // APP or FILE; empty: list
	From        string // the app whose format FILE is in, when its name does not say
	Only        []string
	Overwrite   bool
	KeepSecrets bool
	Target      ConfigEdit
	Env         ImportEnv
	Note        func(format string, args ...any)
}

// ImportRow is one file of the listing: an app's file that holds servers,
// and which of their names the target has already.
type ImportRow struct {
	App     string   `json:"app"`
	Scope   string   `json:"scope"`
	File    string   `json:"file"`
	Servers []string `json:"servers"`
	Clashes []string `json:"clashes"`
	Error   string   `json:"error,omitempty"`
}

// ImportFailure is an entry that cannot be imported, at its place.
type ImportFailure struct {
	Name   string `json:"name"`
	Where  string `json:"where"`
	Reason string `json:"reason"`
}

// Listing is every app file that holds servers, read but not imported; an
// unreadable one is a row with its error, and a note.
func (im *Import) Listing() []ImportRow {
	rows := []ImportRow{}
	existing := im.existing()
	for _, app := range ImportApps {
		for _, src := range ImportSources(app, im.Env) {
			f := ReadImport(src)
			if f == nil || f.Err == nil && len(f.Entries) == 0 {
				continue
			}
			r := ImportRow{App: app, Scope: src.Scope, File: src.Path, Servers: []string{}, Clashes: []string{}}
			if f.Err != nil {
				r.Error = f.Err.Error()
				im.Note("%s", textsafe.OneLine(r.Error))
			}
			for _, e := range f.Entries {
				r.Servers = append(r.Servers, e.Name)
				if existing[e.Name] {
					r.Clashes = append(r.Clashes, e.Name)
				}
			}
			rows = append(rows, r)
		}
	}
	return rows
}

// existing are the names the target file has, for the listing's clashes
// (an import reads the file again under its edit lock).
func (im *Import) existing() map[string]bool {
	names := map[string]bool{}
	data, err := fsx.ReadFile(im.Target.Path, MaxConfigFile)
	if err != nil {
		return names
	}
	if f := ParseFile(im.Target.Path, im.Target.Source, data); f.Err == nil {
		for _, n := range f.Names {
			names[n] = true
		}
	}
	return names
}

// Files reads what APP or FILE names: an app's user and project files
// (but not the target itself), or the one file, in the format its name or
// content (or From) tells.
func (im *Import) Files() ([]*ImportFile, error) {
	if slices.Contains(ImportApps, im.Arg) && im.From == "" {
		return im.appFiles()
	}
	path := im.Arg
	if !filepath.IsAbs(path) {
		path = filepath.Join(im.Env.Cwd, path)
	}
	data, err := fsx.ReadFile(path, MaxConfigFile)
	if err != nil {
		hint := ""
		if errors.Is(err, fs.ErrNotExist) && !strings.ContainsAny(im.Arg, `/\.`) {
			hint = "APP is one of " + strings.Join(ImportApps, ", ")
		}
		return nil, fail.Wrap(fail.Config, err, hint, "cannot read %s", path)
	}
	app := im.From
	if app == "" {
		if app, err = DetectImportApp(path, data); err != nil {
			return nil, fail.New(fail.Config, "say which app wrote it: --from "+strings.Join(ImportApps, "|"), "%s", err)
		}
	}
	src := ImportSource{App: app, Path: path, Scope: "file"}
	if app == AppClaudeCode && filepath.Base(path) == ".claude.json" {
		src.Scope = "user"
	}
	return []*ImportFile{ParseImport(src, data)}, nil
}

func (im *Import) appFiles() ([]*ImportFile, error) {
	var files []*ImportFile
	var looked []string
	for _, src := range ImportSources(im.Arg, im.Env) {
		if !slices.Contains(looked, src.Path) {
			looked = append(looked, src.Path)
		}
		if src.Scope == "project" && fsx.SameFile(src.Path, im.Target.Path) {
			im.Note("%s is the file being written; its servers are there already", src.Path)
			continue
		}
		if f := ReadImport(src); f != nil {
			files = append(files, f)
		}
	}
	if len(files) == 0 {
		return nil, fail.New(fail.Config, "give the file: mcpc config import FILE", "no %s configuration found (looked at %s)", im.Arg, strings.Join(looked, ", "))
	}
	return files, nil
}

// Choose picks the entries to write, in file order: a later file's entry
// replaces an earlier one of the same name (a project's beats the user's,
// as in the app), disabled ones only when named by Only. Their notes are
// given as they are prepared for the target.
func (im *Import) Choose(files []*ImportFile) ([]*Prepared, []ImportFailure, error) {
	var chosen []*Prepared
	var failed []ImportFailure
	found := map[string]bool{}
	at := map[string]int{} // the index in chosen of each name
	broken := 0
	t := ImportTarget{Path: im.Target.Path, Source: im.Target.Source, KeepSecrets: im.KeepSecrets}
	for _, f := range files {
		if f.Err != nil {
			broken++
			failed = append(failed, ImportFailure{Where: f.Path, Reason: f.Err.Error()})
			im.Note("skipped %s", textsafe.OneLine(f.Err.Error()))
			continue
		}
		for _, e := range f.Entries {
			found[e.Name] = true
			p := im.prepare(f, e, t, &failed)
			if p == nil {
				continue
			}
			if i, ok := at[p.Name]; ok {
				im.Note("%q: the entry in %s replaces the one before it, as in %s", e.Name, e.Where(f), f.App)
				chosen[i] = nil
			}
			at[p.Name] = len(chosen)
			chosen = append(chosen, p)
		}
	}
	// Replaced entries drop out in one pass, not one slice move each.
	chosen = slices.DeleteFunc(chosen, func(p *Prepared) bool { return p == nil })
	for _, n := range im.Only {
		if !found[n] && broken == 0 {
			return nil, nil, fail.New(fail.Config, "see what there is with: mcpc config import", "--only: no server %q in %s", n, fileList(files))
		}
	}
	return chosen, failed, nil
}

// prepare makes one entry fit for the target, or says why it is left out
// (nil): not named by Only, disabled, or unusable (then in failed).
func (im *Import) prepare(f *ImportFile, e *ImportEntry, t ImportTarget, failed *[]ImportFailure) *Prepared {
	if len(im.Only) > 0 && !slices.Contains(im.Only, e.Name) {
		return nil
	}
	if e.Disabled && len(im.Only) == 0 {
		im.Note("skipped %q: it is disabled in %s (name it with --only to import it)", e.Name, e.Where(f))
		return nil
	}
	p := Prepare(e, t)
	if p.Skip != "" {
		*failed = append(*failed, ImportFailure{Name: e.Name, Where: e.Where(f), Reason: p.Skip})
		im.Note("skipped %q: %s: %s", e.Name, e.Where(f), textsafe.OneLine(p.Skip))
		return nil
	}
	for _, n := range p.Notes {
		im.Note("%q: %s", e.Name, textsafe.OneLine(n))
	}
	return p
}

func fileList(files []*ImportFile) string {
	var paths []string
	for _, f := range files {
		paths = append(paths, f.Path)
	}
	return strings.Join(paths, ", ")
}

// DryRun is what Write would write, as an "mcpServers" object, and which
// names it would write and keep; nothing is written.
func (im *Import) DryRun(chosen []*Prepared) (out []byte, written, kept []string, err error) {
	data, err := fsx.ReadFile(im.Target.Path, MaxConfigFile)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil, fail.Wrap(fail.Config, err, "", "cannot read %s", im.Target.Path)
	}
	_, written, kept, err = Merge(im.Target.Path, im.Target.Source, data, chosen, im.Overwrite)
	if err != nil {
		return nil, nil, nil, &fail.Error{Code: fail.Config, Msg: err.Error(), Hint: "fix the file first", Err: err}
	}
	var set []NamedServer
	isWritten := nameSet(written)
	for _, p := range chosen {
		if isWritten[p.Name] {
			set = append(set, NamedServer{Name: p.Name, Server: p.Server})
		}
	}
	out = []byte("{\n  \"mcpServers\": {}\n}")
	if len(set) > 0 {
		if out, err = SetServers(nil, set); err != nil {
			return nil, nil, nil, err
		}
	}
	return out, written, kept, nil
}

// Imported is what Write did.
type Imported struct {
	*Edited
	Written, Kept []string
	// Secrets: a literal credential was written (KeepSecrets), into a file
	// now readable by its owner only.
	Secrets bool
}

// Write merges the chosen entries into the target under its edit lock.
func (im *Import) Write(ctx context.Context, chosen []*Prepared) (*Imported, error) {
	if slices.ContainsFunc(chosen, func(p *Prepared) bool { return p.KeptSecrets }) {
		// Private before the secret is written, not after: the atomic
		// write keeps an existing file's mode.
		if err := fsx.PrivateFile(im.Target.Path); err != nil {
			return nil, fail.Wrap(fail.Config, err, "", "cannot make %s private before writing secrets into it (--keep-secrets)", im.Target.Path)
		}
	}
	res := &Imported{}
	ed, err := EditFile(ctx, im.Target, func(data []byte) ([]byte, error) {
		out, w, k, err := Merge(im.Target.Path, im.Target.Source, data, chosen, im.Overwrite)
		res.Written, res.Kept = w, k
		return out, err
	})
	if err != nil {
		return nil, err
	}
	res.Edited = ed
	isWritten := nameSet(res.Written)
	for _, p := range chosen {
		res.Secrets = res.Secrets || p.KeptSecrets && isWritten[p.Name]
	}
	return res, nil
}

// nameSet is names as a set: looking each of n names up in a list of n
// was the quadratic part of a large import.
func nameSet(names []string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// ImportVerdict is an import's outcome: nil when something was imported,
// or everything left out was a name already there; exit 3 when nothing
// could be.
func ImportVerdict(written, kept []string, failed []ImportFailure) error {
	if len(written) > 0 || len(failed) == 0 && len(kept) > 0 {
		return nil
	}
	if len(failed) == 0 {
		return fail.New(fail.Config, "see what there is with: mcpc config import", "no server to import")
	}
	return fail.New(fail.Config, "fix the entries named above, or add them with: mcpc config add", "nothing imported: %d server(s) could not be", len(failed))
}
