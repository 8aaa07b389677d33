package state

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"time"

	"github.com/tidwall/gjson"

	"github.com/mcpc-dev/mcpc/internal/fsx"
	"github.com/mcpc-dev/mcpc/internal/rawmsg"
)

// Memo is what mcpc remembers about servers between invocations: the era
// verdict of each server (state dir, since losing it costs a probe) and the
// results servers marked cacheable (cache dir, since losing them costs a
// request). Every write is a private temp file renamed into place, so
// concurrent invocations only ever see whole records.
type Memo struct {
	EraDir   string // $XDG_STATE_HOME/mcpc/eras
	CacheDir string // $XDG_CACHE_HOME/mcpc/results
	Now      func() time.Time
}

// NewMemo places the memo under mcpc's state and cache directories
// ($XDG_STATE_HOME/mcpc, $XDG_CACHE_HOME/mcpc).
func NewMemo(stateDir, cacheDir string) *Memo {
	return &Memo{EraDir: filepath.Join(stateDir, "eras"), CacheDir: filepath.Join(cacheDir, "results"), Now: time.Now}
}

// EraRecord is the remembered verdict for one server.
type EraRecord struct {
	// Version is the revision the last connection negotiated.
	Version string `json:"protocolVersion"`
	// How the verdict was reached: one of the verdict constants.
	Verdict string `json:"verdict"`
	// Discover is the server's last server/discover result, replayed to the
	// SDK so a remembered modern server is not asked again.
	Discover json.RawMessage `json:"discover,omitempty"`
	// Transport is TransportSSE for a server found to speak the 2024-11-05
	// HTTP+SSE transport (the next invocation goes straight to it), ""
	// for Streamable HTTP and stdio.
	Transport string    `json:"transport,omitempty"`
	At        time.Time `json:"at"`
}

// TransportSSE is EraRecord.Transport for an HTTP+SSE server.
const TransportSSE = "sse"

// How an era verdict was reached.
const (
	VerdictProbe      = "probe"      // server/discover answered
	VerdictInitialize = "initialize" // the probe failed or timed out, initialize worked
	// A stdio server exited on server/discover and initialize then
	// worked: the next invocation starts it once, with initialize.
	VerdictDiedOnProbe = "died on the probe"
	// A stdio server exited before answering either handshake. Its
	// Version is the 2025 revision, the one to start it with next time
	// (once, not probe first and start again); what it speaks is not
	// known, so the first success drops the verdict.
	VerdictDiedAtStart = "died at start"
)

// Died reports whether the verdict records a stdio server that exits on
// the probe: it is not probed again, only started with initialize.
func (r *EraRecord) Died() bool {
	return r != nil && (r.Verdict == VerdictDiedOnProbe || r.Verdict == VerdictDiedAtStart)
}

// HashKey turns any identifying parts into a file-name-safe key.
func HashKey(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:32]
}

// Era returns the remembered verdict for server key, or nil.
func (m *Memo) Era(key string) *EraRecord {
	var r EraRecord
	if !readJSON(filepath.Join(m.EraDir, key+".json"), &r) || r.Version == "" {
		return nil
	}
	return &r
}

// SetEra remembers a verdict. Failing to remember costs a probe next time,
// never the invocation, so errors are dropped.
func (m *Memo) SetEra(key string, r *EraRecord) {
	r.At = m.Now().UTC()
	writeJSON(m.EraDir, key+".json", r)
}

// EraVersion is the revision remembered for server key, or "" (none, or
// no memo).
func (m *Memo) EraVersion(key string) string {
	if m == nil {
		return ""
	}
	if r := m.Era(key); r != nil {
		return r.Version
	}
	return ""
}

// Forget drops the era verdict and every cached result of server key.
func (m *Memo) Forget(key string) {
	os.Remove(filepath.Join(m.EraDir, key+".json"))
	os.RemoveAll(filepath.Join(m.CacheDir, key))
}

// cacheEntry is one cached result, fresh until At + TTLMs.
type cacheEntry struct {
	At     time.Time       `json:"at"`
	TTLMs  int64           `json:"ttlMs"`
	Result json.RawMessage `json:"result"`
}

// Cached returns a fresh cached result for (server, entry), or nil. The
// entry is checked and taken apart with gjson, not decoded: a warm call
// reads it before anything else, and a cached tools/list can be large
// (BenchmarkMemoRead: 60 tools read in under half the time this way).
func (m *Memo) Cached(server, entry string) json.RawMessage {
	data := readMemoFile(filepath.Join(m.CacheDir, server, entry+".json"))
	if data == nil || !gjson.ValidBytes(data) {
		return nil
	}
	// Read where it lies: GetManyBytes would copy a large cached list.
	f := gjson.GetMany(rawmsg.View(data).Raw, "at", "ttlMs", "result")
	at, err := time.Parse(time.RFC3339Nano, f[0].Str)
	ttl := f[1].Int()
	if err != nil || f[0].Type != gjson.String || f[1].Type != gjson.Number || !f[2].Exists() {
		return nil
	}
	if ttl <= 0 || !m.Now().Before(at.Add(time.Duration(ttl)*time.Millisecond)) {
		return nil
	}
	if i := f[2].Index; i > 0 && i+len(f[2].Raw) <= len(data) {
		return data[i : i+len(f[2].Raw)] // no second copy of a large result
	}
	return json.RawMessage(f[2].Raw)
}

// Store caches result for ttl.
// The record is written around the result, not marshalled: json.Marshal
// would copy a 30 MB list into a buffer grown by doubling (more than twice
// the list, beside it). A result that is not valid JSON is not cached.
func (m *Memo) Store(server, entry string, ttlMs int64, result json.RawMessage) {
	if !json.Valid(result) {
		return
	}
	head, err := json.Marshal(&cacheEntry{At: m.Now().UTC(), TTLMs: ttlMs})
	dir := filepath.Join(m.CacheDir, server)
	if err != nil || fsx.PrivateDir(dir) != nil {
		return
	}
	// head ends in "result":null}: the result takes null's place.
	head = bytes.TrimSuffix(head, []byte("null}"))
	fsx.WriteFileParts(filepath.Join(dir, entry+".json"), [][]byte{head, result, []byte("}")}, 0o600, fsx.Refuse)
}

// Invalidate drops cached entries of server whose names start with prefix
// (a method's key prefix), as a list_changed notification asks.
func (m *Memo) Invalidate(server, prefix string) {
	matches, _ := filepath.Glob(filepath.Join(m.CacheDir, server, prefix+"*.json"))
	for _, f := range matches {
		os.Remove(f)
	}
}

// maxMemoFile bounds what mcpc reads back from its own state: a record is a
// few KiB, a cached list may be large, neither is unbounded.
const maxMemoFile = 32 << 20

func readJSON(path string, v any) bool {
	data := readMemoFile(path)
	return data != nil && json.Unmarshal(data, v) == nil
}

// readMemoFile returns the content of a regular file of mcpc's own state,
// or nil: a symlink is not followed, a file over maxMemoFile not read.
func readMemoFile(path string) []byte {
	data, err := fsx.ReadFileNoFollow(path, maxMemoFile)
	if err != nil {
		return nil
	}
	return data
}

// writeJSON writes v to dir/name, in a private directory of mcpc's state,
// atomically: a concurrent reader sees the old record or the new one. A
// symlink there was planted, so it is refused, not written through.
func writeJSON(dir, name string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if err := fsx.PrivateDir(dir); err != nil {
		return err
	}
	return fsx.WriteFile(filepath.Join(dir, name), data, 0o600, fsx.Refuse)
}

// CredentialKey names a secret credential in cache file names. A plain hash
// of a short token could be reversed offline from a directory listing, so
// it is keyed with a random per-user secret kept (0600) in the state dir,
// read only when a credential is in use. Without one (no memo, or it cannot
// be written) the credential still gets a stable key, unsalted.
func (m *Memo) CredentialKey(credential string) string {
	if m == nil {
		return HashKey("credential", credential)
	}
	dir := filepath.Dir(m.EraDir)
	path := filepath.Join(dir, "cache-key")
	salt, err := fsx.ReadFile(path, 1024)
	if err != nil || len(salt) < 32 {
		// Of two invocations making the key at once, the first wins
		// (fsx.CreateExcl) and the second reads it.
		fresh := make([]byte, 32)
		if _, err := rand.Read(fresh); err == nil && fsx.PrivateDir(dir) == nil && fsx.CreateExcl(path, fresh, 0o600) == nil {
			salt = fresh
		} else if salt, err = fsx.ReadFile(path, 1024); err != nil || len(salt) < 32 {
			return HashKey("credential", credential)
		}
	}
	mac := hmac.New(sha256.New, salt)
	mac.Write([]byte(credential))
	return hex.EncodeToString(mac.Sum(nil))[:32]
}
