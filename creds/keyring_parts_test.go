package creds

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/memtest"
)

// fakeItems is a keyring of named items that, like the Credential
// Manager, refuses an item over its limit.
type fakeItems struct {
	// err, when set, is every call's error: a keyring that cannot answer.
	err    error
	limit  int
	items  map[string][]byte
	labels map[string]string
}

func newFakeItems(limit int) *fakeItems {
	return &fakeItems{limit: limit, items: map[string][]byte{}, labels: map[string]string{}}
}

func (f *fakeItems) read(name string) ([]byte, error) {
	if f.err != nil {
		return nil, f.err
	}
	b, ok := f.items[name]
	if !ok {
		return nil, ErrNotFound
	}
	return bytes.Clone(b), nil
}

func (f *fakeItems) write(name, label string, data []byte) error {
	if f.limit > 0 && len(data) > f.limit {
		return fmt.Errorf("item %s: %d bytes over the %d-byte limit", name, len(data), f.limit)
	}
	f.items[name], f.labels[name] = bytes.Clone(data), label
	return nil
}

func (f *fakeItems) remove(name string) error {
	if _, ok := f.items[name]; !ok {
		return ErrNotFound
	}
	delete(f.items, name)
	return nil
}

func (f *fakeItems) names() []string { return slices.Sorted(maps.Keys(f.items)) }

// fakeToken is n characters of base64url from seed, random-looking as tokens
// are: they compress poorly, so the parts are as many as a real login's.
// The seed makes every test's part count the same on every run.
func fakeToken(seed uint64, n int) string {
	b := make([]byte, n)
	rand.NewChaCha8([32]byte{byte(seed)}).Read(b)
	return base64.RawURLEncoding.EncodeToString(b)[:n]
}

// bigRecord is a login with every large field filled: about 20 KB. Two
// servers' records take as many parts.
func bigRecord(server string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"version":1,"server":%q,"accessToken":%q,"refreshToken":%q,"idToken":%q,"dpopKey":%q}`,
		server, fakeToken(1, 8000), fakeToken(2, 4000), fakeToken(3, 7500), fakeToken(4, 200))
	return b.Bytes()
}

// A record larger than a Credential Manager blob is split into parts that
// each fit, named key, key:2/N …, and reads back whole; a smaller record
// that replaces it leaves no part behind, and a delete removes every part.
func TestPartedStoreRoundTrip(t *testing.T) {
	ctx := context.Background()
	items := newFakeItems(credBlobLimit)
	st := partedStore{items: items, limit: credBlobLimit}
	big := bigRecord("prod")
	if err := st.Put(ctx, "k", "mcpc: prod", nil, big); err != nil {
		t.Fatal(err)
	}
	names := items.names()
	n := len(names)
	if n < 6 {
		t.Fatalf("a %d-byte record took %d items: %v", len(big), n, names)
	}
	want := []string{"k"}
	for i := 2; i <= n; i++ {
		want = append(want, fmt.Sprintf("k:%d/%d", i, n))
	}
	if slices.Sort(want); !slices.Equal(names, want) {
		t.Fatalf("items %v, want %v", names, want)
	}
	if got := items.labels["k:2/"+fmt.Sprint(n)]; got != fmt.Sprintf("mcpc: prod (part 2 of %d)", n) {
		t.Errorf("label of part 2: %q", got)
	}
	got, err := st.Get(ctx, "k")
	if err != nil || !bytes.Equal(got, big) {
		t.Fatalf("Get = %d bytes, %v; want the %d bytes put", len(got), err, len(big))
	}

	small := []byte(`{"version":1,"accessToken":"at"}`)
	if err := st.Put(ctx, "k", "mcpc: prod", nil, small); err != nil {
		t.Fatal(err)
	}
	// A record that fits is stored as it is: the same bytes as a keyring
	// without a limit holds.
	if names := items.names(); !slices.Equal(names, []string{"k"}) || !bytes.Equal(items.items["k"], small) {
		t.Fatalf("after a small record: %v, %q", names, items.items["k"])
	}

	if err := st.Put(ctx, "k", "mcpc: prod", nil, big); err != nil {
		t.Fatal(err)
	}
	if err := st.Delete(ctx, "k"); err != nil {
		t.Fatal(err)
	}
	if names := items.names(); len(names) != 0 {
		t.Fatalf("Delete left %v", names)
	}
	if err := st.Delete(ctx, "k"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("second Delete: %v", err)
	}
	if _, err := st.Get(ctx, "k"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get after Delete: %v", err)
	}
}

// A keyring that cannot answer refuses a login (IdPLogin reads nothing
// before its flow) before anyone approves it: exit 4 with the keyring's
// own message. One that answers "not found" for the probe is ready.
func TestPartedStoreReady(t *testing.T) {
	ctx := context.Background()
	items := newFakeItems(credBlobLimit)
	st := partedStore{items: items, limit: credBlobLimit}
	if err := storeReady(ctx, st); err != nil {
		t.Fatalf("Ready: %v", err)
	}
	items.err = credmanErr(winErrorNoSuchLogonSession, "A specified logon session does not exist.", "read the credentials")
	err := storeReady(ctx, st)
	if e := fail.As(err); e == nil || e.Code != fail.AuthRequired || e.Hint != UnavailableHint ||
		e.Msg != "the Windows Credential Manager is not available in this logon session (a network or service logon has none): cannot read the credentials" {
		t.Fatalf("Ready of a keyring that cannot answer: %#v", err)
	}
}

// A keyring without a limit (the Keychain) holds a record as one item of
// its own bytes, however large.
func TestPartedStoreWithoutLimit(t *testing.T) {
	ctx := context.Background()
	items := newFakeItems(0)
	st := partedStore{items: items}
	big := bigRecord("prod")
	if err := st.Put(ctx, "k", "l", nil, big); err != nil {
		t.Fatal(err)
	}
	if names := items.names(); !slices.Equal(names, []string{"k"}) || !bytes.Equal(items.items["k"], big) {
		t.Fatalf("items %v", names)
	}
	// Bytes that look like a part header are framed even when they fit,
	// so a read never mistakes them for one.
	odd := []byte(partMagic + "1/1 0000000000000000\nnot a part")
	if err := st.Put(ctx, "k", "l", nil, odd); err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(items.items["k"], odd) {
		t.Fatal("a record that looks like a part was stored as it is")
	}
	if got, err := st.Get(ctx, "k"); err != nil || !bytes.Equal(got, odd) {
		t.Fatalf("Get = %q, %v", got, err)
	}
}

// A record whose parts do not fit together (one missing, one left by an
// older record, a changed byte, a malformed or hostile header) is the
// unreadable credentials a login replaces: exit 4 naming the login.
func TestPartedStoreCorrupt(t *testing.T) {
	ctx := context.Background()
	ref := Ref{Key: "k", Server: "prod", Login: "mcpc login prod"}
	older := newFakeItems(credBlobLimit)
	partedStore{items: older, limit: credBlobLimit}.Put(ctx, "k", "l", nil, bigRecord("prox"))
	for name, spoil := range map[string]func(f *fakeItems, n int){
		"missing part": func(f *fakeItems, n int) { delete(f.items, fmt.Sprintf("k:%d/%d", n, n)) },
		"older part": func(f *fakeItems, n int) {
			if len(older.items) != n {
				t.Fatalf("the older record has %d parts, the newer %d", len(older.items), n)
			}
			f.items["k:2/"+fmt.Sprint(n)] = older.items["k:2/"+fmt.Sprint(n)]
		},
		"changed byte":      func(f *fakeItems, n int) { f.items["k:2/"+fmt.Sprint(n)][100] ^= 1 },
		"part 2 first":      func(f *fakeItems, n int) { f.items["k"] = f.items["k:2/"+fmt.Sprint(n)] },
		"no header end":     func(f *fakeItems, _ int) { f.items["k"] = []byte(partMagic + strings.Repeat("1", 1<<20)) },
		"malformed header":  func(f *fakeItems, _ int) { f.items["k"] = []byte(partMagic + "1/x 0000000000000000\n") },
		"10^9 parts":        func(f *fakeItems, _ int) { f.items["k"] = []byte(partMagic + "1/1000000000 0000000000000000\n") },
		"not deflate":       func(f *fakeItems, _ int) { f.items["k"] = []byte(partHeader(1, 1, payloadSum([]byte("xyz"))) + "xyz") },
		"negative count":    func(f *fakeItems, _ int) { f.items["k"] = []byte(partMagic + "1/-1 0000000000000000\n") },
		"part beyond count": func(f *fakeItems, _ int) { f.items["k"] = []byte(partMagic + "3/2 0000000000000000\n") },
	} {
		t.Run(name, func(t *testing.T) {
			items := newFakeItems(credBlobLimit)
			st := partedStore{items: items, limit: credBlobLimit}
			if err := st.Put(ctx, "k", "l", nil, bigRecord("prod")); err != nil {
				t.Fatal(err)
			}
			spoil(items, len(items.items))
			_, err := Load(ctx, st, ref)
			if e := fail.As(err); e == nil || e.Code != fail.AuthRequired || e.Msg != "the stored credentials for prod are unreadable" || e.Hint != "mcpc login prod" || !errors.Is(err, errUnreadable) {
				t.Fatalf("Load: %#v", err)
			}
			// A login writes over it, and a logout removes it.
			if err := st.Delete(ctx, "k"); err != nil {
				t.Fatal(err)
			}
			if _, ok := items.items["k"]; ok {
				t.Fatal("Delete left the first part")
			}
		})
	}
}

// What a read of a planted header costs does not grow with what the header
// claims: a count of 10^9, a header that never ends, a part that inflates
// without bound. (The bounds leave room for what the package's other
// tests, running alongside, allocate meanwhile.)
func TestPartsHostileSizes(t *testing.T) {
	var bomb bytes.Buffer
	parts, err := splitRecord(make([]byte, 16<<20), 1<<20)
	if err != nil || len(parts) != 1 {
		t.Fatal(len(parts), err)
	}
	bomb.Write(parts[0])
	if bomb.Len() > 1<<20 {
		t.Fatalf("the bomb is %d bytes", bomb.Len())
	}
	for name, c := range map[string]struct {
		first []byte
		max   uint64
	}{
		"10^9 parts":     {[]byte(partMagic + "1/1000000000 0000000000000000\n"), 64 << 10},
		"endless":        {[]byte(partMagic + strings.Repeat("9", 8<<20)), 64 << 10},
		"inflates 16 MB": {bomb.Bytes(), 8 << 20},
	} {
		var err error
		reads := 0
		got := memtest.Allocated(func() {
			_, err = joinRecord(c.first, func(int, int) ([]byte, error) { reads++; return nil, ErrNotFound })
		})
		t.Logf("%s: %d bytes allocated", name, got)
		if !errors.Is(err, errCorruptParts) || got > c.max || reads > 0 {
			t.Errorf("%s: %v after %d reads, %d bytes allocated (at most %d)", name, err, reads, got, c.max)
		}
	}
}

// A record too large for maxParts items is refused with exit 4, before
// anything is written.
func TestPartsTooLarge(t *testing.T) {
	items := newFakeItems(credBlobLimit)
	st := partedStore{items: items, limit: credBlobLimit}
	err := st.Put(context.Background(), "k", "l", nil, []byte(fakeToken(5, 300<<10)))
	if e := fail.As(err); e == nil || e.Code != fail.AuthRequired || e.Hint != UnavailableHint || !strings.HasPrefix(e.Msg, "the credentials are too large for the keyring (") || len(items.items) != 0 {
		t.Fatalf("Put: %#v, items %v", err, items.names())
	}
}

// The Credential Manager's names and comments: part 2 of 3 of key k is
// "mcpc:k:2/3", and a label is cut to 256 UTF-16 code units, whole runes.
func TestCredmanNames(t *testing.T) {
	if got := credmanTarget(partName("k", 2, 3)); got != "mcpc:k:2/3" {
		t.Errorf("target of part 2 of 3: %q", got)
	}
	if got := credmanTarget(partName("k", 1, 3)); got != "mcpc:k" {
		t.Errorf("target of part 1 of 3: %q", got)
	}
	label := "mcpc: prod (https://" + strings.Repeat("😀", 200) + ")"
	if got := clipUTF16(label, credCommentLimit); got != "mcpc: prod (https://"+strings.Repeat("😀", 118) {
		t.Errorf("comment: %q", got)
	}
}

func TestClipUTF16(t *testing.T) {
	for _, c := range []struct {
		in   string
		max  int
		want string
	}{
		{"abc", 3, "abc"},
		{"abcd", 3, "abc"},
		{"a😀b", 2, "a"}, // the emoji takes two code units
		{"a😀b", 3, "a😀"},
		{"", 0, ""},
	} {
		if got := clipUTF16(c.in, c.max); got != c.want {
			t.Errorf("clipUTF16(%q, %d) = %q, want %q", c.in, c.max, got, c.want)
		}
	}
}

// The OS keyrings' status codes: not found is ErrNotFound, everything else
// exit 4 with the hint naming the ways that need no keyring.
func TestKeyringStatus(t *testing.T) {
	if keychainErr(errSecSuccess, "x") != nil {
		t.Fatal("success is an error")
	}
	if !errors.Is(keychainErr(errSecItemNotFound, "x"), ErrNotFound) || !errors.Is(credmanErr(winErrorNotFound, "Element not found.", "x"), ErrNotFound) {
		t.Fatal("not found is not ErrNotFound")
	}
	for err, want := range map[error]string{
		keychainErr(errSecInteractionNotAllowed, "read the credentials"):                                             "the Keychain is locked and cannot be unlocked here (no screen to ask on, e.g. over ssh): cannot read the credentials",
		keychainErr(errSecUserCanceled, "read the credentials"):                                                      "the Keychain refused mcpc access to its item: cannot read the credentials",
		keychainErr(errSecAuthFailed, "store the credentials"):                                                       "the Keychain refused mcpc access to its item: cannot store the credentials",
		keychainErr(errSecNoDefaultKeychain, "store the credentials"):                                                "there is no default Keychain to store the credentials",
		keychainErr(errSecMissingEntitlement, "read the credentials"):                                                "the Keychain needs an entitlement this build lacks: cannot read the credentials",
		keychainErr(errSecDuplicateItem, "store the credentials"):                                                    "the Keychain cannot store the credentials (OSStatus -25299)",
		credmanErr(winErrorNoSuchLogonSession, "A specified logon session does not exist.", "store the credentials"): "the Windows Credential Manager is not available in this logon session (a network or service logon has none): cannot store the credentials",
		credmanErr(winErrorInvalidParameter, "The parameter is incorrect.", "store the credentials"):                 "the Windows Credential Manager refused the credentials: cannot store the credentials (The parameter is incorrect.)",
		credmanErr(5, "Access is denied.", "read the credentials"):                                                   "the Windows Credential Manager cannot read the credentials (error 5: Access is denied.)",
	} {
		if e := fail.As(err); e == nil || e.Code != fail.AuthRequired || e.Code.Exit() != 4 || e.Msg != want || e.Hint != UnavailableHint {
			t.Errorf("%#v, want %q", err, want)
		}
	}
}

// blockingItems is a keyring that never answers until the channel closes.
type blockingItems chan struct{}

func (b blockingItems) read(string) ([]byte, error)        { <-b; return nil, ErrNotFound }
func (b blockingItems) write(string, string, []byte) error { <-b; return nil }
func (b blockingItems) remove(string) error                { <-b; return nil }

// FuzzKeyringParts: any record round-trips through any item limit, and
// any bytes as a first part (and as every later one) either read as a
// record or fail as corrupt parts, without a panic.
func FuzzKeyringParts(f *testing.F) {
	f.Add([]byte(`{"version":1}`), uint16(0), []byte(nil))
	f.Add([]byte(partMagic+"1/2 0123456789abcdef\nxx"), uint16(80), []byte(partMagic+"2/2 0123456789abcdef\nyy"))
	f.Add(bytes.Repeat([]byte("ab"), 300), uint16(60), []byte("x"))
	f.Fuzz(func(t *testing.T, data []byte, limit uint16, other []byte) {
		lim := int(limit)
		if lim != 0 {
			lim = maxHeaderLen + 1 + lim%1024
		}
		parts, err := splitRecord(data, lim)
		if err == nil {
			got, err := joinRecord(parts[0], func(i, n int) ([]byte, error) {
				if n != len(parts) || i > n {
					t.Fatalf("asked for part %d of %d of %d", i, n, len(parts))
				}
				return parts[i-1], nil
			})
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("round trip at limit %d: %v", lim, err)
			}
		}
		got, err := joinRecord(data, func(int, int) ([]byte, error) { return other, nil })
		if err != nil && !errors.Is(err, errCorruptParts) {
			t.Fatalf("joinRecord: %v", err)
		}
		if len(got) > maxRecordSize {
			t.Fatalf("joinRecord returned %d bytes", len(got))
		}
	})
}
