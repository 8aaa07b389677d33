package creds

// The macOS Keychain, reached through the Security framework's SecItem API
// without cgo: github.com/ebitengine/purego loads Security.framework and
// CoreFoundation at run time and calls them with the platform's C calling
// convention, so the CGO_ENABLED=0 binaries mcpc ships and `go install`
// builds have the Keychain. A cgo build runs the same code: one
// implementation for every darwin build, compiled and vetted in CI for
// amd64 and arm64 (neither can run on the Linux machines this project is
// developed and tested on).
//
// Who can read an item. Each record is a generic-password item (service
// "mcpc", account the record's key) added by SecItemAdd with no
// kSecAttrAccess or kSecAttrAccessControl, so the login keychain gives it
// its default access list: the application that created it (this mcpc
// binary, by its code signature, or for an unsigned binary its path and
// hash) reads it without asking; any other program makes the Keychain ask
// the user, who can deny. That is what github.com/keybase/go-keychain,
// which this replaces, gives too: it calls the same SecItemAdd with the
// same kind of dictionary. It is not what `/usr/bin/security
// add-generic-password` would give: there the trusted application is
// `security` itself, so any program the user runs could read the tokens
// silently with `security find-generic-password -w`; mcpc never creates
// its items through that tool. The cost of the default: an mcpc binary
// that changes (an update that is not signed by the same identity) is
// asked for the keychain password once and can be allowed "always".
//
// kSecAttrAccessible is WhenUnlockedThisDeviceOnly: mcpc runs in the
// user's session, so it has no need to read tokens while the device is
// locked (AfterFirstUnlock would let anything running then read them), and
// ThisDeviceOnly keeps them out of backups restored on another Mac;
// kSecAttrSynchronizable is false, so iCloud Keychain never copies tokens
// to other devices. (In the file-based login keychain, which is where an
// unentitled command-line program's items go, the keychain's own lock
// decides; the attribute holds where the data-protection keychain is used.)

import (
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"
)

// OSStore is the macOS login Keychain; its items have no size limit, so a
// record is one item.
func OSStore(func(string) string) Store { return partedStore{items: keychainItems{}} }

// keychainService is every mcpc item's service (the cgo build before this
// one used the same, so its items still read).
const keychainService = "mcpc"

const (
	securityPath       = "/System/Library/Frameworks/Security.framework/Security"
	coreFoundationPath = "/System/Library/Frameworks/CoreFoundation.framework/CoreFoundation"
	// kCFStringEncodingUTF8
	cfStringEncodingUTF8 = 0x08000100
)

// sec holds the framework functions and constants, loaded once.
var sec struct {
	once sync.Once
	err  error

	cfDataCreate            func(alloc uintptr, bytes *byte, length int) uintptr
	cfDataGetLength         func(data uintptr) int
	cfDataGetBytePtr        func(data uintptr) uintptr
	cfStringCreateWithBytes func(alloc uintptr, bytes *byte, length int, encoding uint32, external bool) uintptr
	cfDictionaryCreate      func(alloc uintptr, keys, values *uintptr, n int, keyCallBacks, valueCallBacks uintptr) uintptr
	cfRelease               func(ref uintptr)

	secItemAdd          func(attrs uintptr, result *uintptr) int32
	secItemCopyMatching func(query uintptr, result *uintptr) int32
	secItemUpdate       func(query, attrs uintptr) int32
	secItemDelete       func(query uintptr) int32

	// The values of the frameworks' exported CFStringRef and CFBooleanRef
	// variables, and the addresses of the dictionary callback structures.
	class, classGenericPassword, service, account, label, valueData uintptr
	returnData, matchLimit, matchLimitOne, accessible, whenUnlocked uintptr
	synchronizable, cfTrue, cfFalse, keyCallBacks, valueCallBacks   uintptr
}

// cPointer turns an address the frameworks gave into a pointer, without a
// uintptr-to-unsafe.Pointer conversion vet cannot tell from a misuse.
func cPointer(addr uintptr) unsafe.Pointer {
	return *(*unsafe.Pointer)(unsafe.Pointer(&addr))
}

func loadSecurity() error {
	sec.once.Do(func() {
		cf, err := purego.Dlopen(coreFoundationPath, purego.RTLD_NOW|purego.RTLD_GLOBAL)
		if err != nil {
			sec.err = unavailable(err, "cannot load CoreFoundation for the Keychain")
			return
		}
		security, err := purego.Dlopen(securityPath, purego.RTLD_NOW|purego.RTLD_GLOBAL)
		if err != nil {
			sec.err = unavailable(err, "cannot load the Security framework for the Keychain")
			return
		}
		sym := func(lib uintptr, name string) uintptr {
			if sec.err != nil {
				return 0
			}
			p, err := purego.Dlsym(lib, name)
			if err != nil {
				sec.err = unavailable(err, "the Security framework lacks %s", name)
			}
			return p
		}
		fn := func(fptr any, lib uintptr, name string) {
			if p := sym(lib, name); p != 0 {
				purego.RegisterFunc(fptr, p)
			}
		}
		// An exported constant: the symbol is the variable's address.
		val := func(lib uintptr, name string) uintptr {
			if p := sym(lib, name); p != 0 {
				return *(*uintptr)(cPointer(p))
			}
			return 0
		}
		fn(&sec.cfDataCreate, cf, "CFDataCreate")
		fn(&sec.cfDataGetLength, cf, "CFDataGetLength")
		fn(&sec.cfDataGetBytePtr, cf, "CFDataGetBytePtr")
		fn(&sec.cfStringCreateWithBytes, cf, "CFStringCreateWithBytes")
		fn(&sec.cfDictionaryCreate, cf, "CFDictionaryCreate")
		fn(&sec.cfRelease, cf, "CFRelease")
		fn(&sec.secItemAdd, security, "SecItemAdd")
		fn(&sec.secItemCopyMatching, security, "SecItemCopyMatching")
		fn(&sec.secItemUpdate, security, "SecItemUpdate")
		fn(&sec.secItemDelete, security, "SecItemDelete")
		sec.keyCallBacks = sym(cf, "kCFTypeDictionaryKeyCallBacks")
		sec.valueCallBacks = sym(cf, "kCFTypeDictionaryValueCallBacks")
		sec.cfTrue = val(cf, "kCFBooleanTrue")
		sec.cfFalse = val(cf, "kCFBooleanFalse")
		sec.class = val(security, "kSecClass")
		sec.classGenericPassword = val(security, "kSecClassGenericPassword")
		sec.service = val(security, "kSecAttrService")
		sec.account = val(security, "kSecAttrAccount")
		sec.label = val(security, "kSecAttrLabel")
		sec.valueData = val(security, "kSecValueData")
		sec.returnData = val(security, "kSecReturnData")
		sec.matchLimit = val(security, "kSecMatchLimit")
		sec.matchLimitOne = val(security, "kSecMatchLimitOne")
		sec.accessible = val(security, "kSecAttrAccessible")
		sec.whenUnlocked = val(security, "kSecAttrAccessibleWhenUnlockedThisDeviceOnly")
		sec.synchronizable = val(security, "kSecAttrSynchronizable")
	})
	return sec.err
}

// cfRefs collects the CoreFoundation objects one call creates, to release
// them all when it is done.
type cfRefs []uintptr

func (r *cfRefs) keep(ref uintptr) uintptr {
	*r = append(*r, ref)
	return ref
}

func (r cfRefs) release() {
	for _, ref := range r {
		if ref != 0 {
			sec.cfRelease(ref)
		}
	}
}

func firstByte(b []byte) *byte {
	if len(b) == 0 {
		return nil
	}
	return &b[0]
}

func (r *cfRefs) str(s string) uintptr {
	b := []byte(s)
	return r.keep(sec.cfStringCreateWithBytes(0, firstByte(b), len(b), cfStringEncodingUTF8, false))
}

func (r *cfRefs) data(b []byte) uintptr {
	return r.keep(sec.cfDataCreate(0, firstByte(b), len(b)))
}

// dict makes a CFDictionary of key, value pairs (the dictionary retains
// them, so the caller's references are released with the rest).
func (r *cfRefs) dict(kv ...uintptr) uintptr {
	var keys, values []uintptr
	for i := 0; i+1 < len(kv); i += 2 {
		keys, values = append(keys, kv[i]), append(values, kv[i+1])
	}
	return r.keep(sec.cfDictionaryCreate(0, &keys[0], &values[0], len(keys), sec.keyCallBacks, sec.valueCallBacks))
}

// item is the query part every call shares: mcpc's generic password for
// name.
func (r *cfRefs) item(name string, more ...uintptr) uintptr {
	kv := append([]uintptr{
		sec.class, sec.classGenericPassword,
		sec.service, r.str(keychainService),
		sec.account, r.str(name),
	}, more...)
	return r.dict(kv...)
}

type keychainItems struct{}

func (keychainItems) read(name string) ([]byte, error) {
	if err := loadSecurity(); err != nil {
		return nil, err
	}
	var r cfRefs
	defer r.release()
	var res uintptr
	q := r.item(name, sec.returnData, sec.cfTrue, sec.matchLimit, sec.matchLimitOne)
	if err := keychainErr(sec.secItemCopyMatching(q, &res), "read the credentials"); err != nil {
		return nil, err
	}
	r.keep(res)
	n := sec.cfDataGetLength(res)
	if n == 0 {
		return []byte{}, nil
	}
	return append([]byte(nil), unsafe.Slice((*byte)(cPointer(sec.cfDataGetBytePtr(res))), n)...), nil
}

func (keychainItems) write(name, label string, data []byte) error {
	if err := loadSecurity(); err != nil {
		return err
	}
	var r cfRefs
	defer r.release()
	attrs := r.item(name,
		sec.label, r.str(label),
		sec.valueData, r.data(data),
		sec.accessible, sec.whenUnlocked,
		sec.synchronizable, sec.cfFalse,
	)
	st := sec.secItemAdd(attrs, nil)
	if st == errSecDuplicateItem {
		// Replace the data and label in place: the item keeps its access
		// list, so a user's "always allow" stays.
		st = sec.secItemUpdate(r.item(name), r.dict(sec.label, r.str(label), sec.valueData, r.data(data)))
	}
	return keychainErr(st, "store the credentials")
}

func (keychainItems) remove(name string) error {
	if err := loadSecurity(); err != nil {
		return err
	}
	var r cfRefs
	defer r.release()
	return keychainErr(sec.secItemDelete(r.item(name)), "delete the credentials")
}
