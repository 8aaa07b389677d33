//go:build !linux

package testscripts

import "os/exec"

// dieWithUs: elsewhere than on Linux, nothing ties a daemon's life to
// ours (the keyring scripts run on Linux only).
func dieWithUs(*exec.Cmd) {}

func killOrphanDaemons() {}

func daemonEnv() []string { return nil }
