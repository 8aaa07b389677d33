package creds

// The one way a record is laid out in a keyring whose items are small (the
// Windows Credential Manager holds at most 2,560 bytes per credential) and
// in one that is not (the macOS Keychain): a record that fits one item, and
// does not begin like a part header, is stored as it is (so what the
// Keychain or the Secret Service hold is the record's JSON, as before);
// anything else is compressed and split into numbered parts, each carrying
// a header with its number, the part count and a checksum of the whole, so
// a read can tell a complete record from a torn write or a part left by an
// older record. None of this calls the OS: it runs, and is tested, on every
// platform, and the platform files only read, write and remove one item.

import (
	"bytes"
	"compress/flate"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strconv"
	"unicode/utf16"
)

// keyringItems is one OS keyring seen as named items: the only part of a
// Store that differs between platforms.
type keyringItems interface {
	// read returns the item's bytes, ErrNotFound when there is none, or
	// the keyring's error (exit 4).
	read(name string) ([]byte, error)
	// write creates or replaces the item.
	write(name, label string, data []byte) error
	// remove deletes the item; a missing one is ErrNotFound.
	remove(name string) error
}

// partedStore is the Store over keyringItems whose items hold at most
// limit bytes (0: no limit).
type partedStore struct {
	items keyringItems
	limit int
}

const (
	// partMagic starts every part of a split record. A record is JSON, so
	// it never starts with it; one that did would be split anyway.
	partMagic = "mcpc-part v1 "
	// maxParts bounds how many items one record may take, and so what a
	// read of a planted header can make mcpc read or allocate: 64 parts
	// of the Credential Manager hold about 160 KB of compressed record.
	maxParts = 64
	// maxRecordSize bounds a record after decompression (token responses
	// are read with the same 1 MiB bound), so a planted compressed part
	// cannot expand without limit.
	maxRecordSize = 1 << 20
	// sumLen is the hex length of the checksum in a part header.
	sumLen = 16
	// maxHeaderLen is the longest header: "mcpc-part v1 64/64 <sum>\n".
	maxHeaderLen = len(partMagic) + 2 + 1 + 2 + 1 + sumLen + 1
)

// errCorruptParts is in the chain of a read whose parts do not make a
// record: Load reports it as unreadable credentials, which a login replaces.
var errCorruptParts = fmt.Errorf("%w: the keyring's parts of the record do not fit together", errUnreadable)

// partName names part i of n of the record stored under key: the first part
// is the key itself, so a record that fits one item keeps the plain name.
func partName(key string, i, n int) string {
	if i == 1 {
		return key
	}
	return key + ":" + strconv.Itoa(i) + "/" + strconv.Itoa(n)
}

// The Windows Credential Manager's limits (wincred.h), here so that the
// layout they force is tested on every platform.
const (
	// credBlobLimit is CRED_MAX_CREDENTIAL_BLOB_SIZE (5*512): a generic
	// credential's blob holds no more.
	credBlobLimit = 5 * 512
	// credCommentLimit is CRED_MAX_STRING_LENGTH, in UTF-16 code units.
	credCommentLimit = 256
)

// credmanTarget is the Credential Manager name of the item name: mcpc's
// credentials sort together in its list.
func credmanTarget(name string) string { return "mcpc:" + name }

// partLabel is what keyring tools show for part i of n.
func partLabel(label string, i, n int) string {
	if n == 1 {
		return label
	}
	return fmt.Sprintf("%s (part %d of %d)", label, i, n)
}

// clipUTF16 shortens s to at most max UTF-16 code units, whole runes only:
// the Credential Manager refuses a comment longer than 256.
func clipUTF16(s string, max int) string {
	n := 0
	for i, r := range s {
		n += utf16.RuneLen(r)
		if n > max {
			return s[:i]
		}
	}
	return s
}

// errTooLargeForKeyring is Put's error for a record that needs more than
// maxParts items.
func errTooLargeForKeyring(size int) error {
	return unavailable(nil, "the credentials are too large for the keyring (%d bytes compressed; at most %d items)", size, maxParts)
}

// splitRecord lays data out in items of at most limit bytes (0: no limit).
func splitRecord(data []byte, limit int) ([][]byte, error) {
	if (limit == 0 || len(data) <= limit) && !bytes.HasPrefix(data, []byte(partMagic)) {
		return [][]byte{data}, nil
	}
	var z bytes.Buffer
	w, _ := flate.NewWriter(&z, flate.BestCompression)
	w.Write(data)
	w.Close()
	payload := z.Bytes()
	chunk := len(payload)
	if limit > 0 {
		chunk = limit - maxHeaderLen
	}
	n := max(1, (len(payload)+chunk-1)/chunk)
	if n > maxParts {
		return nil, errTooLargeForKeyring(len(payload))
	}
	sum := payloadSum(payload)
	parts := make([][]byte, n)
	for i := range n {
		body := payload[i*chunk : min(len(payload), (i+1)*chunk)]
		parts[i] = append([]byte(partHeader(i+1, n, sum)), body...)
	}
	return parts, nil
}

func payloadSum(payload []byte) string {
	s := sha256.Sum256(payload)
	return hex.EncodeToString(s[:sumLen/2])
}

func partHeader(i, n int, sum string) string {
	return partMagic + strconv.Itoa(i) + "/" + strconv.Itoa(n) + " " + sum + "\n"
}

// partInfo is what a part's header says.
type partInfo struct {
	i, n int
	sum  string
	body []byte
}

// parsePart reads a part's header. ok is false for bytes that are not a
// part (a record stored whole); err says a header is malformed. Nothing is
// allocated for what the header claims: the count is checked first.
func parsePart(b []byte) (p partInfo, ok bool, err error) {
	if !bytes.HasPrefix(b, []byte(partMagic)) {
		return p, false, nil
	}
	rest := b[len(partMagic):]
	nl := bytes.IndexByte(rest[:min(len(rest), maxHeaderLen)], '\n')
	if nl < 0 {
		return p, true, fmt.Errorf("%w (a part header without an end)", errCorruptParts)
	}
	is, tail, ok1 := bytes.Cut(rest[:nl], []byte("/"))
	ns, sum, ok2 := bytes.Cut(tail, []byte(" "))
	i, err1 := strconv.Atoi(string(is))
	n, err2 := strconv.Atoi(string(ns))
	if !ok1 || !ok2 || err1 != nil || err2 != nil || n < 1 || n > maxParts || i < 1 || i > n || len(sum) != sumLen {
		return p, true, fmt.Errorf("%w (a malformed part header)", errCorruptParts)
	}
	return partInfo{i: i, n: n, sum: string(sum), body: rest[nl+1:]}, true, nil
}

// joinRecord reassembles a record whose first item is first; next reads
// part i of n. A missing part, one of another record (another checksum or
// count) or a whole that does not match its checksum is errCorruptParts.
func joinRecord(first []byte, next func(i, n int) ([]byte, error)) ([]byte, error) {
	p, ok, err := parsePart(first)
	if err != nil {
		return nil, err
	}
	if !ok {
		return first, nil
	}
	if p.i != 1 {
		return nil, fmt.Errorf("%w (the first item is part %d)", errCorruptParts, p.i)
	}
	var payload bytes.Buffer
	payload.Write(p.body)
	for i := 2; i <= p.n; i++ {
		b, err := next(i, p.n)
		if errors.Is(err, ErrNotFound) {
			return nil, fmt.Errorf("%w (part %d of %d is missing)", errCorruptParts, i, p.n)
		}
		if err != nil {
			return nil, err
		}
		q, ok, err := parsePart(b)
		if !ok || err != nil || q.i != i || q.n != p.n || q.sum != p.sum {
			return nil, fmt.Errorf("%w (part %d of %d belongs to another record)", errCorruptParts, i, p.n)
		}
		payload.Write(q.body)
	}
	if payloadSum(payload.Bytes()) != p.sum {
		return nil, fmt.Errorf("%w (the checksum does not match)", errCorruptParts)
	}
	out, err := io.ReadAll(io.LimitReader(flate.NewReader(&payload), maxRecordSize+1))
	if err != nil || len(out) > maxRecordSize {
		return nil, fmt.Errorf("%w (the record does not decompress within %d bytes)", errCorruptParts, maxRecordSize)
	}
	return out, nil
}

// partCount is how many items the record under key takes now: 0 when there
// is none, 1 for a whole record or one whose header cannot be read.
func (s partedStore) partCount(key string) int {
	b, err := s.items.read(key)
	if err != nil {
		return 0
	}
	if p, ok, err := parsePart(b); ok && err == nil {
		return p.n
	}
	return 1
}

// readyProbe names an item mcpc never writes.
const readyProbe = "mcpc-ready-probe"

// Ready reads an item that is not there: a keyring that cannot answer (a
// Windows network logon has no credential set, a locked Keychain with no
// screen to ask on) fails the login before anyone approves it, as on Linux.
func (s partedStore) Ready(ctx context.Context) error {
	_, err := bounded(ctx, "check", func() (struct{}, error) {
		_, err := s.items.read(readyProbe)
		if errors.Is(err, ErrNotFound) {
			err = nil
		}
		return struct{}{}, err
	})
	return err
}

func (s partedStore) Get(ctx context.Context, key string) ([]byte, error) {
	return bounded(ctx, "read", func() ([]byte, error) {
		first, err := s.items.read(key)
		if err != nil {
			return nil, err
		}
		return joinRecord(first, func(i, n int) ([]byte, error) { return s.items.read(partName(key, i, n)) })
	})
}

// Put writes the parts last to first, so the first (the one a read starts
// from) replaces the old record only once the rest is in place, then
// removes the old record's parts that the new one did not overwrite.
func (s partedStore) Put(ctx context.Context, key, label string, _ map[string]string, data []byte) error {
	_, err := bounded(ctx, "write", func() (struct{}, error) {
		parts, err := splitRecord(data, s.limit)
		if err != nil {
			return struct{}{}, err
		}
		old, n := s.partCount(key), len(parts)
		for i := n; i >= 1; i-- {
			if err := s.items.write(partName(key, i, n), partLabel(label, i, n), parts[i-1]); err != nil {
				return struct{}{}, err
			}
		}
		if old != n {
			// A part that cannot be removed stays behind unread: the
			// new record is complete without it.
			s.removeParts(key, old)
		}
		return struct{}{}, nil
	})
	return err
}

// removeParts removes parts 2..n of a record of n parts; a part already
// gone is no error.
func (s partedStore) removeParts(key string, n int) error {
	for i := 2; i <= n; i++ {
		if err := s.items.remove(partName(key, i, n)); err != nil && !errors.Is(err, ErrNotFound) {
			return err
		}
	}
	return nil
}

func (s partedStore) Delete(ctx context.Context, key string) error {
	_, err := bounded(ctx, "delete", func() (struct{}, error) {
		n := s.partCount(key)
		if err := s.removeParts(key, n); err != nil {
			return struct{}{}, err
		}
		return struct{}{}, s.items.remove(key)
	})
	return err
}
