package commands

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/format"
	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/fsx"
	"github.com/mcpc-dev/mcpc/internal/textsafe"
)

type configImportOptions struct {
	arg         string // APP or FILE; empty: list
	from        string // the format of FILE, when its name does not say
	project     bool
	dryRun      bool
	overwrite   bool
	keepSecrets bool
	only        []string
}

func configImportCommand(st *state) *cli.Command {
	return &cli.Command{
		Name:      "import",
		Usage:     "copy servers configured for other apps into mcpc's config",
		ArgsUsage: "[APP | FILE]",
		Description: `Without an argument, lists the files of other MCP hosts that hold servers,
how many, and which names the config file already has; nothing is written.
APP is one of ` + strings.Join(config.ImportApps, ", ") + `:
its user file and the project's (found from here up to the repository root)
are read. FILE is one file in any of those formats (told by its name or
content; --from APP says it). The servers go into the user config file, or
with --project the project's .mcp.json (which stays trusted, as with
'config add --project'), under the same lock and checks as 'config add'.
A name the file already has is kept unless --overwrite. Interpolation
(${env:VAR}, $VAR) becomes ${VAR}; ${input:ID} and ${workspaceFolder}
become ${ID} with a note naming what to export. A literal credential (an
env value or header named *TOKEN*, *SECRET*, *PASSWORD*, *COOKIE*,
*CREDENTIAL*, or with a word KEY, PASS, PAT, PWD, AUTH: DB_PASS,
githubPat; or a token-shaped value: ghp_..., sk-..., xoxb-..., a JWT, a
long random string) is replaced by ${NAME} to export, unless --keep-secrets copies it
into the user file (never into a project file). An entry mcpc cannot use is
skipped with its file:line and reason; exit 3 when nothing could be
imported.`,
		Metadata: examples(
			"what could be imported, from which app", "mcpc config import --text",
			"preview Claude Desktop's servers", "mcpc config import claude-desktop --dry-run",
			"two of Cursor's servers, into this project", "mcpc config import cursor --only github,linear --project",
		),
		Flags: []cli.Flag{
			projectFlag,
			&cli.BoolFlag{Name: "dry-run", Usage: "print the entries that would be written, and write nothing"},
			&cli.BoolFlag{Name: "overwrite", Usage: "replace servers of the same name (kept by default)"},
			&cli.StringSliceFlag{Name: "only", Usage: "import only these servers: `NAME,...` (repeatable)"},
			&cli.BoolFlag{Name: "keep-secrets", Usage: "copy literal credentials into the user config file (made private) instead of ${VAR}"},
			&cli.StringFlag{Name: "from", Usage: "the `APP` whose format FILE is in"},
		},
		Action: st.serverAction(func(ctx context.Context, cmd *cli.Command, g *globals) error {
			o := configImportOptions{
				from: cmd.String("from"), project: cmd.Bool("project"), dryRun: cmd.Bool("dry-run"),
				overwrite: cmd.Bool("overwrite"), keepSecrets: cmd.Bool("keep-secrets"),
			}
			for _, v := range cmd.StringSlice("only") {
				for _, n := range strings.Split(v, ",") {
					if n = strings.TrimSpace(n); n != "" {
						o.only = append(o.only, n)
					}
				}
			}
			switch args := cmd.Args().Slice(); {
			case len(args) > 1:
				return usagef("", "unexpected argument %q", args[1])
			case len(args) == 1:
				o.arg = args[0]
			case len(o.only) > 0 || o.from != "":
				return usagef("mcpc config import APP --only NAME", "--only and --from need an APP or FILE")
			}
			if o.from != "" && !slices.Contains(config.ImportApps, o.from) {
				return usagef("use one of "+strings.Join(config.ImportApps, ", "), "unknown --from app %q", o.from)
			}
			return st.runConfigImport(ctx, g, o)
		}),
	}
}

func (st *state) importEnv(g *globals) config.ImportEnv {
	return config.ImportEnv{Home: g.dirs.Home, Cwd: g.cwd, Getenv: st.env.Getenv, GOOS: runtime.GOOS}
}

// importRow is one line of the listing (format.KindImportList).
type importRow struct {
	App     string   `json:"app"`
	Scope   string   `json:"scope"`
	File    string   `json:"file"`
	Servers []string `json:"servers"`
	Clashes []string `json:"clashes"`
	Error   string   `json:"error,omitempty"`
}

func (st *state) runConfigImport(ctx context.Context, g *globals, o configImportOptions) error {
	target := st.editTarget(g, o.project)
	if o.arg == "" {
		return st.importListing(g, target, st.importExisting(target))
	}
	files, err := st.importFiles(g, o, target)
	if err != nil {
		return err
	}
	t := config.ImportTarget{Path: target.Path, Source: target.Source, KeepSecrets: o.keepSecrets}
	chosen, failed, err := st.importChoose(files, o, t)
	if err != nil {
		return err
	}
	if o.dryRun {
		return st.importDryRun(g, target, chosen, failed, o)
	}
	var written, kept []string
	var secrets bool
	if slices.ContainsFunc(chosen, func(p *config.Prepared) bool { return p.KeptSecrets }) {
		// Private before the secret is written, not after: the atomic
		// write keeps an existing file's mode.
		if err := fsx.PrivateFile(target.Path); err != nil {
			return fail.Wrap(fail.Config, err, "", "cannot make %s private before writing secrets into it (--keep-secrets)", target.Path)
		}
	}
	ed, err := config.EditFile(ctx, target, func(data []byte) ([]byte, error) {
		out, w, k, err := config.Merge(target.Path, target.Source, data, chosen, o.overwrite)
		written, kept = w, k
		return out, err
	})
	if err != nil {
		return err
	}
	isWritten := nameSet(written)
	for _, p := range chosen {
		secrets = secrets || p.KeptSecrets && isWritten[p.Name]
	}
	if secrets {
		textsafe.Note(st.env.Stderr, "%s now holds secrets (--keep-secrets); it is readable by you only (mode 0600)", target.Path)
	}
	st.importKeptNotes(kept, target.Path)
	if ed.Source == config.SourceProject && !ed.Trusted && len(written) > 0 {
		textsafe.Note(st.env.Stderr, "%s is not trusted; its servers are ignored until 'mcpc trust'", ed.Path)
	}
	if err := st.importResult(g, target.Path, written, kept, failed); err != nil {
		return err
	}
	return importVerdict(written, kept, failed)
}

// importExisting are the names the target file has, for the listing's
// clashes (an import reads the file again under its edit lock).
func (st *state) importExisting(target config.ConfigEdit) map[string]bool {
	names := map[string]bool{}
	data, err := fsx.ReadFile(target.Path, config.MaxConfigFile)
	if err != nil {
		return names
	}
	if f := config.ParseFile(target.Path, target.Source, data); f.Err == nil {
		for _, n := range f.Names {
			names[n] = true
		}
	}
	return names
}

func (st *state) importListing(g *globals, target config.ConfigEdit, existing map[string]bool) error {
	rows := []importRow{}
	env := st.importEnv(g)
	for _, app := range config.ImportApps {
		for _, src := range config.ImportSources(app, env) {
			f := config.ReadImport(src)
			if f == nil || f.Err == nil && len(f.Entries) == 0 {
				continue
			}
			r := importRow{App: app, Scope: src.Scope, File: src.Path, Servers: []string{}, Clashes: []string{}}
			if f.Err != nil {
				r.Error = f.Err.Error()
				textsafe.Note(st.env.Stderr, "%s", textsafe.OneLine(r.Error))
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
	return st.print(g, format.KindImportList, map[string]any{"target": target.Path, "sources": rows})
}

// importFiles reads what APP or FILE names.
func (st *state) importFiles(g *globals, o configImportOptions, target config.ConfigEdit) ([]*config.ImportFile, error) {
	var files []*config.ImportFile
	if slices.Contains(config.ImportApps, o.arg) && o.from == "" {
		srcs := config.ImportSources(o.arg, st.importEnv(g))
		var looked []string
		for _, src := range srcs {
			if !slices.Contains(looked, src.Path) {
				looked = append(looked, src.Path)
			}
			if src.Scope == "project" && fsx.SameFile(src.Path, target.Path) {
				textsafe.Note(st.env.Stderr, "%s is the file being written; its servers are there already", src.Path)
				continue
			}
			if f := config.ReadImport(src); f != nil {
				files = append(files, f)
			}
		}
		if len(files) == 0 {
			return nil, fail.New(fail.Config, "give the file: mcpc config import FILE", "no %s configuration found (looked at %s)", o.arg, strings.Join(looked, ", "))
		}
		return files, nil
	}
	path := o.arg
	if !filepath.IsAbs(path) {
		path = filepath.Join(g.cwd, path)
	}
	data, err := fsx.ReadFile(path, config.MaxConfigFile)
	if err != nil {
		hint := ""
		if errors.Is(err, fs.ErrNotExist) && !strings.ContainsAny(o.arg, `/\.`) {
			hint = "APP is one of " + strings.Join(config.ImportApps, ", ")
		}
		return nil, fail.Wrap(fail.Config, err, hint, "cannot read %s", path)
	}
	app := o.from
	if app == "" {
		if app, err = config.DetectImportApp(path, data); err != nil {
			return nil, fail.New(fail.Config, "say which app wrote it: --from "+strings.Join(config.ImportApps, "|"), "%s", err)
		}
	}
	src := config.ImportSource{App: app, Path: path, Scope: "file"}
	if app == config.AppClaudeCode && filepath.Base(path) == ".claude.json" {
		src.Scope = "user"
	}
	return []*config.ImportFile{config.ParseImport(src, data)}, nil
}

// importFailure is an entry that cannot be imported, at its place.
type importFailure struct {
	Name   string `json:"name"`
	Where  string `json:"where"`
	Reason string `json:"reason"`
}

// importChoose picks the entries to write, in file order: a later file's
// entry replaces an earlier one of the same name (a project's beats the
// user's, as in the app), disabled ones only when named by --only. Their
// notes are printed as they are prepared for the target.
func (st *state) importChoose(files []*config.ImportFile, o configImportOptions, t config.ImportTarget) ([]*config.Prepared, []importFailure, error) {
	var chosen []*config.Prepared
	var failed []importFailure
	found := map[string]bool{}
	at := map[string]int{} // the index in chosen of each name
	broken := 0
	for _, f := range files {
		if f.Err != nil {
			broken++
			failed = append(failed, importFailure{Where: f.Path, Reason: f.Err.Error()})
			textsafe.Note(st.env.Stderr, "skipped %s", textsafe.OneLine(f.Err.Error()))
			continue
		}
		for _, e := range f.Entries {
			found[e.Name] = true
			if len(o.only) > 0 && !slices.Contains(o.only, e.Name) {
				continue
			}
			if e.Disabled && len(o.only) == 0 {
				textsafe.Note(st.env.Stderr, "skipped %q: it is disabled in %s (name it with --only to import it)", e.Name, e.Where(f))
				continue
			}
			p := config.Prepare(e, t)
			if p.Skip != "" {
				failed = append(failed, importFailure{Name: e.Name, Where: e.Where(f), Reason: p.Skip})
				textsafe.Note(st.env.Stderr, "skipped %q: %s: %s", e.Name, e.Where(f), textsafe.OneLine(p.Skip))
				continue
			}
			for _, n := range p.Notes {
				textsafe.Note(st.env.Stderr, "%q: %s", e.Name, textsafe.OneLine(n))
			}
			if i, ok := at[p.Name]; ok {
				textsafe.Note(st.env.Stderr, "%q: the entry in %s replaces the one before it, as in %s", e.Name, e.Where(f), f.App)
				chosen[i] = nil
			}
			at[p.Name] = len(chosen)
			chosen = append(chosen, p)
		}
	}
	// Replaced entries drop out in one pass, not one slice move each.
	chosen = slices.DeleteFunc(chosen, func(p *config.Prepared) bool { return p == nil })
	for _, n := range o.only {
		if !found[n] && broken == 0 {
			return nil, nil, fail.New(fail.Config, "see what there is with: mcpc config import", "--only: no server %q in %s", n, fileList(files))
		}
	}
	return chosen, failed, nil
}

func fileList(files []*config.ImportFile) string {
	var paths []string
	for _, f := range files {
		paths = append(paths, f.Path)
	}
	return strings.Join(paths, ", ")
}

// importDryRun prints the entries as they would be written into the
// target (an "mcpServers" object), and writes nothing.
func (st *state) importDryRun(g *globals, target config.ConfigEdit, chosen []*config.Prepared, failed []importFailure, o configImportOptions) error {
	data, err := fsx.ReadFile(target.Path, config.MaxConfigFile)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fail.Wrap(fail.Config, err, "", "cannot read %s", target.Path)
	}
	_, written, kept, err := config.Merge(target.Path, target.Source, data, chosen, o.overwrite)
	if err != nil {
		return &fail.Error{Code: fail.Config, Msg: err.Error(), Hint: "fix the file first", Err: err}
	}
	st.importKeptNotes(kept, target.Path)
	var set []config.NamedServer
	isWritten := nameSet(written)
	for _, p := range chosen {
		if isWritten[p.Name] {
			set = append(set, config.NamedServer{Name: p.Name, Server: p.Server})
		}
	}
	out := []byte("{\n  \"mcpServers\": {}\n}")
	if len(set) > 0 {
		if out, err = config.SetServers(nil, set); err != nil {
			return err
		}
	}
	if _, err := fmt.Fprintln(st.env.Stdout, strings.TrimRight(string(out), "\n")); err != nil {
		return err
	}
	textsafe.Note(st.env.Stderr, "dry run: %s not written", target.Path)
	return importVerdict(written, kept, failed)
}

func (st *state) importKeptNotes(kept []string, path string) {
	for _, n := range kept {
		textsafe.Note(st.env.Stderr, "kept %q: %s has a server of that name (--overwrite replaces it)", n, path)
	}
}

func (st *state) importResult(g *globals, path string, written, kept []string, failed []importFailure) error {
	if g.mode == format.ModeJSON || g.query != "" {
		return st.print(g, format.KindGeneric, map[string]any{
			"file": path, "imported": nonNil(written), "kept": nonNil(kept), "skipped": nonNil(failed),
		})
	}
	if len(written) == 0 {
		return nil
	}
	_, err := fmt.Fprintf(st.env.Stdout, "imported %s into %s\n", strings.Join(written, ", "), path)
	return err
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

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// importVerdict: exit 0 when something was imported, or everything left
// out was a name already there; 3 when nothing could be.
func importVerdict(written, kept []string, failed []importFailure) error {
	if len(written) > 0 || len(failed) == 0 && len(kept) > 0 {
		return nil
	}
	if len(failed) == 0 {
		return fail.New(fail.Config, "see what there is with: mcpc config import", "no server to import")
	}
	return fail.New(fail.Config, "fix the entries named above, or add them with: mcpc config add", "nothing imported: %d server(s) could not be", len(failed))
}
