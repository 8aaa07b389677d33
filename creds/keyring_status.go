package creds

// What the OS keyrings' status codes mean to mcpc. The codes are plain
// numbers here, not the platforms' types, so the mapping builds and is
// tested on every platform; the platform files only pass the code on.

// Security framework result codes (SecBase.h).
const (
	errSecSuccess               = 0
	errSecUserCanceled          = -128
	errSecAuthFailed            = -25293
	errSecNoSuchKeychain        = -25294
	errSecNotAvailable          = -25291
	errSecDuplicateItem         = -25299
	errSecItemNotFound          = -25300
	errSecNoDefaultKeychain     = -25307
	errSecInteractionNotAllowed = -25308
	errSecMissingEntitlement    = -34018
)

// keychainErr is the error for a Security framework status; what is the
// operation ("read the credentials").
func keychainErr(status int32, what string) error {
	switch status {
	case errSecSuccess:
		return nil
	case errSecItemNotFound:
		return ErrNotFound
	case errSecInteractionNotAllowed:
		return unavailable(nil, "the Keychain is locked and cannot be unlocked here (no screen to ask on, e.g. over ssh): cannot %s", what)
	case errSecUserCanceled, errSecAuthFailed:
		return unavailable(nil, "the Keychain refused mcpc access to its item: cannot %s", what)
	case errSecNoSuchKeychain, errSecNoDefaultKeychain, errSecNotAvailable:
		return unavailable(nil, "there is no default Keychain to %s", what)
	case errSecMissingEntitlement:
		return unavailable(nil, "the Keychain needs an entitlement this build lacks: cannot %s", what)
	}
	return unavailable(nil, "the Keychain cannot %s (OSStatus %d)", what, status)
}

// Windows system error codes the Credential Manager returns (winerror.h).
const (
	winErrorInvalidParameter   = 87
	winErrorNotFound           = 1168
	winErrorNoSuchLogonSession = 1312
	winErrorBadUsername        = 2202
)

// credmanErr is the error for a Credential Manager call that failed with
// the Windows error code; text is the system's message for it.
func credmanErr(code uint32, text, what string) error {
	switch code {
	case winErrorNotFound:
		return ErrNotFound
	case winErrorNoSuchLogonSession:
		// A network logon (ssh with a key, a service) has no credential
		// store loaded.
		return unavailable(nil, "the Windows Credential Manager is not available in this logon session (a network or service logon has none): cannot %s", what)
	case winErrorInvalidParameter, winErrorBadUsername:
		return unavailable(nil, "the Windows Credential Manager refused the credentials: cannot %s (%s)", what, text)
	}
	return unavailable(nil, "the Windows Credential Manager cannot %s (error %d: %s)", what, code, text)
}
