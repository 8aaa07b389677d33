package config

import "context"

// ImportOutcome is what an import did (or with a dry run, would do): as
// JSON, what 'mcpc config import' prints.
type ImportOutcome struct {
	File     string          `json:"file"`
	Imported []string        `json:"imported"`
	Kept     []string        `json:"kept"`
	Skipped  []ImportFailure `json:"skipped"`
	// Preview is a dry run's entries as they would be written, an
	// "mcpServers" object; nothing was.
	Preview []byte `json:"-"`
}

// Run reads the files, chooses their entries and writes them (with
// dryRun, only Preview), noting on the way what the user must know about
// the target: names kept, secrets written, a project file not trusted.
func (im *Import) Run(ctx context.Context, dryRun bool) (*ImportOutcome, error) {
	files, err := im.Files()
	if err != nil {
		return nil, err
	}
	chosen, failed, err := im.Choose(files)
	if err != nil {
		return nil, err
	}
	o := &ImportOutcome{File: im.Target.Path, Skipped: orEmpty(failed)}
	if dryRun {
		out, written, kept, err := im.DryRun(chosen)
		if err != nil {
			return nil, err
		}
		o.Preview, o.Imported, o.Kept = out, orEmpty(written), orEmpty(kept)
		im.keptNotes(kept)
		return o, nil
	}
	res, err := im.Write(ctx, chosen)
	if err != nil {
		return nil, err
	}
	o.Imported, o.Kept = orEmpty(res.Written), orEmpty(res.Kept)
	if res.Secrets {
		im.Note("%s now holds secrets (--keep-secrets); it is readable by you only (mode 0600)", im.Target.Path)
	}
	im.keptNotes(res.Kept)
	if n := res.UntrustedNote(); n != "" && len(res.Written) > 0 {
		im.Note("%s", n)
	}
	return o, nil
}

// Verdict is ImportVerdict of the outcome.
func (o *ImportOutcome) Verdict() error { return ImportVerdict(o.Imported, o.Kept, o.Skipped) }

func (im *Import) keptNotes(kept []string) {
	for _, n := range kept {
		im.Note("kept %q: %s has a server of that name (--overwrite replaces it)", n, im.Target.Path)
	}
}

// orEmpty is s, or an empty list for nil: a JSON list, never null.
func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
