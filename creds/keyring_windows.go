package creds

// OSStore is no keyring yet on Windows: mcpc does not use the Credential
// Manager, so what needs a keyring fails as it does on a Linux machine
// without a Secret Service, with the same hint.
func OSStore(func(string) string) Store {
	return noStore{"there is no keyring: mcpc does not support the Windows Credential Manager yet"}
}
