package creds

// beforeRefresh, when set, runs after a process has taken the refresh lock,
// re-read the keyring and decided to refresh, just before the token request
// is sent. Only a binary built with the mcpc_testhooks tag sets it (see
// testhooks_on.go): the released binary has no way to pause there.
var beforeRefresh func()
