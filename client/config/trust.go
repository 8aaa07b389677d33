package config

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/gofrs/flock"
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
	if errors.Is(err, os.ErrNotExist) {
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
// read-modify-write runs under a file lock so concurrent invocations don't
// lose each other's records.
func (t TrustStore) Set(abs, hash string, now time.Time) (bool, error) {
	if err := os.MkdirAll(t.Dir, 0o700); err != nil {
		return false, fail.Wrap(fail.Config, err, "", "cannot create state directory")
	}
	lock := flock.New(t.path() + ".lock")
	if err := lock.Lock(); err != nil {
		return false, fail.Wrap(fail.Config, err, "", "cannot lock trust records")
	}
	defer lock.Unlock()
	tf, err := t.load()
	if err != nil {
		return false, err
	}
	_, had := tf.Files[abs]
	if hash == "" {
		delete(tf.Files, abs)
	} else {
		tf.Files[abs] = trustRecord{SHA256: hash, TrustedAt: now.UTC().Truncate(time.Second)}
	}
	data, err := json.MarshalIndent(tf, "", "  ")
	if err != nil {
		return false, err
	}
	if err := writeFileAtomic(t.path(), append(data, '\n'), 0o600); err != nil {
		return false, fail.Wrap(fail.Config, err, "", "cannot write trust records")
	}
	return had, nil
}

func writeFileAtomic(path string, data []byte, perm os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

func hashBytes(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// HashFile returns the SHA-256 of the file's current content.
func HashFile(path string) (string, error) {
	data, err := fsx.ReadFile(path, MaxConfigFile)
	if err != nil {
		return "", fmt.Errorf("cannot read %s: %w", path, err)
	}
	return hashBytes(data), nil
}
