package transport

import (
	"fmt"
	"os/exec"
	"sync"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// tree is a stdio server's Job object. Every process the server starts is
// in it too (breakaway is not allowed), daemonized or not, and the job is
// created with JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE: when its one handle,
// mcpc's, is closed — by release, or by Windows when mcpc exits in any
// way, killed included — every process still in it is killed. That is the
// process group, the parent-death signal and the subreaper of the unix
// side in one.
type tree struct {
	mu  sync.Mutex // KillServers may race a teardown that closes job
	job windows.Handle
	pid uint32 // the server's, which leads its console process group
}

// contain puts a server just started with serverAttr into a new job. A
// child the server starts in the instant between its start and this call
// is not in the job; starting the server suspended would close that gap,
// but os/exec gives no handle to its thread to resume it with.
func contain(cmd *exec.Cmd) (*tree, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return nil, fmt.Errorf("cannot create a job object for the server: %w", err)
	}
	var info windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return nil, fmt.Errorf("cannot set up the server's job object: %w", err)
	}
	// The server is mcpc's child and not yet waited for, so its pid
	// cannot have been reused.
	pid := uint32(cmd.Process.Pid)
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, pid)
	if err == nil {
		err = windows.AssignProcessToJobObject(job, h)
		windows.CloseHandle(h)
	}
	if err != nil {
		windows.CloseHandle(job)
		return nil, fmt.Errorf("cannot put the server in a job object: %w", err)
	}
	return &tree{job: job, pid: pid}, nil
}

// terminate sends CTRL_BREAK to the server's console process group, the
// one console signal a process group can be sent (Ctrl-C is disabled in
// it by CREATE_NEW_PROCESS_GROUP); Node and Python stop on it by default.
func (t *tree) terminate() {
	windows.GenerateConsoleCtrlEvent(windows.CTRL_BREAK_EVENT, t.pid)
}

// kill stops every process in the job at once.
func (t *tree) kill() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.job != 0 {
		windows.TerminateJobObject(t.job, 1)
	}
}

// release stops what is left in the job once the server has exited: ask,
// give grace, then kill, and close the job.
func (t *tree) release(grace time.Duration) {
	if t.active() > 0 {
		t.terminate()
		for deadline := time.Now().Add(grace); time.Now().Before(deadline) && t.active() > 0; {
			time.Sleep(10 * time.Millisecond)
		}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	windows.TerminateJobObject(t.job, 1)
	windows.CloseHandle(t.job)
	t.job = 0
}

// active counts the processes still in the job; 0 when it cannot tell.
func (t *tree) active() uint32 {
	// JOBOBJECT_BASIC_ACCOUNTING_INFORMATION, which x/sys/windows does
	// not declare.
	var info struct {
		TotalUserTime, TotalKernelTime                     int64
		ThisPeriodTotalUserTime, ThisPeriodTotalKernelTime int64
		TotalPageFaultCount, TotalProcesses                uint32
		ActiveProcesses, TotalTerminatedProcesses          uint32
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.job == 0 || windows.QueryInformationJobObject(t.job, windows.JobObjectBasicAccountingInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info)), nil) != nil {
		return 0
	}
	return info.ActiveProcesses
}
