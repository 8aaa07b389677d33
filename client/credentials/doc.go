// Package credentials chooses which credential a server's connection
// gets (a stored login, client credentials, workload identity, enterprise
// ID-JAG, DPoP through creds), says its status, and logs an entry in and
// out. It sets what it chooses on conn.ConnectOptions; the keyring, the
// OAuth flows and refresh under a lock are creds'.
package credentials
