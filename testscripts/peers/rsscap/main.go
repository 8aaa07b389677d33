//go:build unix

// Command rsscap runs a program and fails when its peak resident memory
// passes a bound: the scripts' way to assert that mcpc stays bounded on
// hostile input, measured by the kernel (wait4's ru_maxrss) rather than by
// the Go runtime, so nothing the process allocates escapes the count.
//
//	rsscap [-v] MIB PROG [ARGS...]
//
// PROG inherits stdin, stdout and stderr; SIGINT and SIGTERM are passed on.
// rsscap exits with PROG's status (128+signal when PROG was killed by one),
// or 99 when the peak passed MIB MiB. With -v it prints the peak on stderr.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"syscall"
)

func main() {
	args := os.Args[1:]
	verbose := len(args) > 0 && args[0] == "-v"
	if verbose {
		args = args[1:]
	}
	if len(args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: rsscap [-v] MIB PROG [ARGS...]")
		os.Exit(2)
	}
	limit, err := strconv.ParseInt(args[0], 10, 64)
	if err != nil || limit <= 0 {
		fmt.Fprintf(os.Stderr, "rsscap: bad bound %q (MiB)\n", args[0])
		os.Exit(2)
	}
	cmd := exec.Command(args[1], args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "rsscap: %v\n", err)
		os.Exit(2)
	}
	go func() {
		for s := range sigs {
			cmd.Process.Signal(s)
		}
	}()
	cmd.Wait()
	st := cmd.ProcessState
	ru, _ := st.SysUsage().(*syscall.Rusage)
	peak := int64(0)
	if ru != nil {
		peak = int64(ru.Maxrss) / 1024 // KiB on Linux
	}
	if verbose {
		fmt.Fprintf(os.Stderr, "rsscap: %s peak RSS %d MiB\n", args[1], peak)
	}
	if peak > limit {
		fmt.Fprintf(os.Stderr, "rsscap: %s peak RSS %d MiB, over the bound of %d MiB\n", args[1], peak, limit)
		os.Exit(99)
	}
	code := st.ExitCode()
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		code = 128 + int(ws.Signal())
	}
	os.Exit(code)
}
