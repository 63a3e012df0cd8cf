package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// clockTicks is USER_HZ, the unit of the CPU times in /proc/<pid>/stat; it
// is 100 on every Linux architecture Go supports.
const clockTicks = 100

// cpuSample is a process's cumulated CPU time at one moment.
type cpuSample struct {
	at  time.Time
	cpu time.Duration // user + system
}

// sampleCPU reads utime + stime of pid from /proc/<pid>/stat.
func sampleCPU(pid int) (cpuSample, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return cpuSample{}, err
	}
	// The command name (field 2) is in parentheses and may hold spaces:
	// count fields after the last ')'.
	s := string(b)
	k := strings.LastIndexByte(s, ')')
	if k < 0 {
		return cpuSample{}, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	f := strings.Fields(s[k+1:])
	// f[0] is field 3 (state); utime and stime are fields 14 and 15.
	if len(f) < 13 {
		return cpuSample{}, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f)+2)
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return cpuSample{}, fmt.Errorf("/proc/%d/stat: bad utime/stime %q %q", pid, f[11], f[12])
	}
	return cpuSample{at: time.Now(), cpu: time.Duration(ut+st) * time.Second / clockTicks}, nil
}

// cpuPercent is the share of one core used between two samples, in percent.
func cpuPercent(a, b cpuSample) float64 {
	wall := b.at.Sub(a.at)
	if wall <= 0 {
		return 0
	}
	return 100 * float64(b.cpu-a.cpu) / float64(wall)
}

// openFiles counts the descriptors pid holds (the entries of
// /proc/<pid>/fd): its links, clients, listeners and files.
func openFiles(pid int) (int, error) {
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return 0, fmt.Errorf("open files: %w", err)
	}
	return len(ents), nil
}

// rssBytes reads VmRSS of pid from /proc/<pid>/status.
func rssBytes(pid int) (int64, error) { return statusBytes(pid, "VmRSS") }

// anonBytes reads RssAnon of pid from /proc/<pid>/status: the resident
// memory of its own (heap, stacks), without the pages of its executable
// and libraries, which the connections do not change but which a
// go-sentinel gives back after 5 s of quiet.
func anonBytes(pid int) (int64, error) { return statusBytes(pid, "RssAnon") }

// statusBytes reads the field (in kB) of pid's /proc/<pid>/status, in
// bytes.
func statusBytes(pid int, field string) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, field+":"); ok {
			if f := strings.Fields(v); len(f) >= 1 {
				if kb, err := strconv.ParseInt(f[0], 10, 64); err == nil {
					return kb * 1024, nil
				}
			}
		}
	}
	return 0, fmt.Errorf("/proc/%d/status: no %s", pid, field)
}
