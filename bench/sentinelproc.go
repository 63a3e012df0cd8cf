package main

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// impl is a Sentinel implementation under test, or a mixed fleet of them.
type impl struct {
	name string // "go-sentinel", "redis-sentinel" or "mixed (...)"
	bin  string
	// members, for a mixed fleet, is what Sentinel k of a run is
	// (members[k % len]); nil: every Sentinel runs bin.
	members []impl
}

// member is the implementation Sentinel k of a run of im runs.
func (im impl) member(k int) impl {
	if len(im.members) == 0 {
		return im
	}
	return im.members[k%len(im.members)]
}

// isGo reports whether the implementation is go-sentinel (or its baseline).
func (im impl) isGo() bool { return strings.HasPrefix(im.name, "go-sentinel") }

// monitored is one master a Sentinel is told to monitor.
type monitored struct {
	name string
	port int
}

// fleetConf is what the Sentinels of one run share.
type fleetConf struct {
	masters   []monitored
	quorum    int
	downAfter time.Duration
	failover  time.Duration // failover-timeout
	// extra returns more config lines for Sentinel k (the proxy's), or
	// nil.
	extra func(k int) string
}

// sentinelProc is one running Sentinel.
type sentinelProc struct {
	port int
	dir  string
	cmd  *exec.Cmd
	done chan struct{}
}

// pid is the process id.
func (s *sentinelProc) pid() int { return s.cmd.Process.Pid }

// startSentinel writes a config for fc into dir and starts im on port. With
// pprofAddr set (go-sentinel only), the profiling endpoint listens there.
func startSentinel(im impl, dir string, port int, fc fleetConf, pprofAddr string) (*sentinelProc, error) {
	return startSentinelK(im, dir, port, fc, pprofAddr, 0)
}

// startSentinelK is startSentinel for Sentinel k of the fleet (fc.extra).
func startSentinelK(im impl, dir string, port int, fc fleetConf, pprofAddr string, k int) (*sentinelProc, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "port %d\nbind 127.0.0.1\ndaemonize no\ndir %s\nlogfile %s\n", port, dir, filepath.Join(dir, "sentinel.log"))
	for _, m := range fc.masters {
		fmt.Fprintf(&b, "sentinel monitor %s 127.0.0.1 %d %d\n", m.name, m.port, fc.quorum)
		fmt.Fprintf(&b, "sentinel down-after-milliseconds %s %d\n", m.name, fc.downAfter.Milliseconds())
		fmt.Fprintf(&b, "sentinel failover-timeout %s %d\n", m.name, fc.failover.Milliseconds())
	}
	if fc.extra != nil {
		b.WriteString(fc.extra(k))
	}
	conf := filepath.Join(dir, "sentinel.conf")
	if err := os.WriteFile(conf, []byte(b.String()), 0o644); err != nil {
		return nil, err
	}
	cmd := exec.Command(im.bin, conf)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	cmd.Env = os.Environ()
	if pprofAddr != "" && im.name == "go-sentinel" {
		cmd.Env = append(cmd.Env, "GO_SENTINEL_PPROF="+pprofAddr)
	}
	if *goEnv != "" && im.isGo() {
		cmd.Env = append(cmd.Env, strings.Split(*goEnv, ",")...)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: %w", im.name, err)
	}
	s := &sentinelProc{port: port, dir: dir, cmd: cmd, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(s.done) }()
	return s, nil
}

// stop ends the Sentinel (SIGKILL: nothing it does on exit is measured).
func (s *sentinelProc) stop() {
	_ = s.cmd.Process.Kill()
	<-s.done
}

// freePorts returns n distinct loopback ports nothing listened on a moment
// ago.
func freePorts(n int) ([]int, error) {
	lns := make([]net.Listener, 0, n)
	defer func() {
		for _, ln := range lns {
			_ = ln.Close()
		}
	}()
	ports := make([]int, 0, n)
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		lns = append(lns, ln)
		ports = append(ports, ln.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}
