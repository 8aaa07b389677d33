//go:build linux

// The bench measures on Linux only: it reads /proc, and wait4's rusage and
// the uname it reports have no portable equivalent.

// Command spawn starts the commands bench/harness measures and reports their
// wall time, CPU time and peak RSS. It exists because a child's peak RSS
// (wait4's maxrss) includes the peak RSS of the process that forked it: the
// harness itself would inflate every reading, so this small process does
// the forking and nothing else, resetting its own peak before each run.
//
// Requests arrive one a line on stdin, fields separated by NUL:
//
//	PARALLEL OWNRSS NENV ENV... ARGV...
//
// and each gets one line back: "WALL_NS CPU_NS MAXRSS_KIB FAILURES MINFLT",
// or "error: …". With OWNRSS=1 the peak RSS is the process's own VmHWM, polled
// while it runs, leaving out the children it reaps (a stdio server).
package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	in := bufio.NewReader(os.Stdin)
	null, err := syscall.Open(os.DevNull, syscall.O_RDWR, 0)
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	for {
		line, err := in.ReadString('\n')
		if err != nil {
			return
		}
		fmt.Println(run(strings.Split(strings.TrimSuffix(line, "\n"), "\x00"), null))
	}
}

func run(f []string, null int) string {
	if len(f) < 4 {
		return "error: short request"
	}
	n, err1 := strconv.Atoi(f[0])
	nenv, err2 := strconv.Atoi(f[2])
	if err1 != nil || err2 != nil || n < 1 || len(f) < 4+nenv {
		return "error: bad request"
	}
	own := f[1] == "1"
	env, argv := f[3:3+nenv], f[3+nenv:]
	attr := &syscall.ProcAttr{Env: env, Files: []uintptr{uintptr(null), uintptr(null), uintptr(null)}}

	// The children inherit this process's peak RSS: bring it down to the
	// current RSS first (5 resets VmHWM), so an earlier large run does not
	// show in later small ones.
	if f, err := os.OpenFile("/proc/self/clear_refs", os.O_WRONLY, 0); err == nil {
		f.WriteString("5")
		f.Close()
	}
	var cpu time.Duration
	var rss, minflt int64
	failures := 0
	polled := map[int]chan int64{}
	start := time.Now()
	running := 0
	for range n {
		pid, err := syscall.ForkExec(argv[0], argv, attr)
		if err != nil {
			failures++
			continue
		}
		running++
		if own {
			ch := make(chan int64, 1)
			polled[pid] = ch
			go pollHWM(pid, ch)
		}
	}
	for running > 0 {
		var ws syscall.WaitStatus
		var ru syscall.Rusage
		pid, err := syscall.Wait4(-1, &ws, 0, &ru)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return "error: wait4: " + err.Error()
		}
		running--
		if !ws.Exited() || ws.ExitStatus() != 0 {
			failures++
		}
		cpu += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		minflt += ru.Minflt
		r := ru.Maxrss
		if ch, ok := polled[pid]; ok {
			r = <-ch
		}
		rss = max(rss, r)
	}
	wall := time.Since(start)
	return fmt.Sprintf("%d %d %d %d %d", wall.Nanoseconds(), cpu.Nanoseconds(), rss, failures, minflt)
}

// pollHWM reads the process's VmHWM every 2 ms until it has exited (a
// zombie has no memory fields) and sends the last value read.
func pollHWM(pid int, out chan<- int64) {
	path := "/proc/" + strconv.Itoa(pid) + "/status"
	var last int64
	buf := make([]byte, 4096)
	for {
		fd, err := syscall.Open(path, syscall.O_RDONLY, 0)
		if err != nil {
			break
		}
		k, _ := syscall.Read(fd, buf)
		syscall.Close(fd)
		v, ok := field(buf[:max(k, 0)], "VmHWM:")
		if !ok {
			break
		}
		last = v
		time.Sleep(2 * time.Millisecond)
	}
	out <- last
}

func field(data []byte, key string) (int64, bool) {
	i := bytes.Index(data, []byte(key))
	if i < 0 {
		return 0, false
	}
	rest := data[i+len(key):]
	if j := bytes.IndexByte(rest, '\n'); j >= 0 {
		rest = rest[:j]
	}
	f := strings.Fields(string(rest))
	if len(f) == 0 {
		return 0, false
	}
	v, err := strconv.ParseInt(f[0], 10, 64)
	return v, err == nil
}
