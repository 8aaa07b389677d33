package config

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"path/filepath"
	"time"

	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/fsx"
)

// TrustState is what the trust store says about one project file.
type TrustState int

const (
	Untrusted TrustState = iota
	Trusted
	Changed // trusted once, but its bytes differ from what was trusted
)

func (t TrustState) String() string {
	switch t {
	case Trusted:
		return "trusted"
	case Changed:
		return "changed since trusted"
	}
	return "untrusted"
}

type trustRecord struct {
	SHA256    string    `json:"sha256"`
	TrustedAt time.Time `json:"trustedAt"`
}

type trustFile struct {
	Version int                    `json:"version"`
	Files   map[string]trustRecord `json:"files"`
}

// TrustStore records which project files the user has reviewed, by absolute
// path and SHA-256 of their content, in the state directory.
type TrustStore struct{ Dir string }

func (t TrustStore) path() string { return filepath.Join(t.Dir, "trust.json") }

func (t TrustStore) load() (*trustFile, error) {
	tf := &trustFile{Version: 1, Files: map[string]trustRecord{}}
	data, err := fsx.ReadFile(t.path(), MaxConfigFile)
	if errors.Is(err, fs.ErrNotExist) {
		return tf, nil
	}
	if err != nil {
		return nil, fail.Wrap(fail.Config, err, "", "cannot read trust records")
	}
	if err := json.Unmarshal(data, tf); err != nil {
		return nil, fail.Wrap(fail.Config, err, "remove "+t.path()+" and trust your project files again", "trust records in %s are corrupt", t.path())
	}
	if tf.Files == nil {
		tf.Files = map[string]trustRecord{}
	}
	return tf, nil
}

// State reports whether the file at abs path with content hash is trusted.
func (t TrustStore) State(abs, hash string) (TrustState, error) {
	tf, err := t.load()
	if err != nil {
		return Untrusted, err
	}
	rec, ok := tf.Files[abs]
	switch {
	case !ok:
		return Untrusted, nil
	case rec.SHA256 == hash:
		return Trusted, nil
	}
	return Changed, nil
}

// Set records (hash != "") or forgets (hash == "") the trust of abs. The
// read-modify-write runs under the trust records' edit lock, so concurrent
// invocations don't lose each other's records.
func (t TrustStore) Set(ctx context.Context, abs, hash string, now time.Time) (bool, error) {
	had := false
	err := withEditLock(ctx, Dirs{State: t.Dir}.LockDir(), t.path(), func() error {
		tf, err := t.load()
		if err != nil {
			return err
		}
		_, had = tf.Files[abs]
		if hash == "" {
			delete(tf.Files, abs)
		} else {
			tf.Files[abs] = trustRecord{SHA256: hash, TrustedAt: now.UTC().Truncate(time.Second)}
		}
		data, err := json.MarshalIndent(tf, "", "  ")
		if err != nil {
			return err
		}
		// State: a symlink in the state directory was planted, not made
		// by the user, so it is refused rather than written through.
		if err := fsx.WriteFile(t.path(), append(data, '\n'), 0o600, fsx.Refuse); err != nil {
			return fail.Wrap(fail.Config, err, "", "cannot write trust records")
		}
		return nil
	})
	return had, err
}

func hashBytes(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
