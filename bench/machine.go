package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"
)

// describeMachine prints what the figures were measured on.
func describeMachine(w io.Writer, impls []impl) {
	model := "unknown"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
	}
	kernel := "unknown"
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		kernel = strings.TrimSpace(string(b))
	}
	fmt.Fprintf(w, "Measured %s on %d cores (%s), Linux %s, %s.\n", time.Now().UTC().Format("2006-01-02 15:04 UTC"), runtime.NumCPU(), model, kernel, runtime.Version())
	for _, im := range impls {
		fmt.Fprintf(w, "- %s: %s\n", im.name, firstLine(im.bin, "--version"))
	}
	fmt.Fprintf(w, "- redis-server: %s\n", firstLine("redis-server", "--version"))
	if p, err := exec.LookPath("redis-benchmark"); err == nil {
		fmt.Fprintf(w, "- redis-benchmark: %s\n", p)
	}
	fmt.Fprintln(w)
}

func firstLine(bin string, args ...string) string {
	b, err := exec.Command(bin, args...).Output()
	if err != nil {
		return "unknown (" + err.Error() + ")"
	}
	l, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	return l
}
