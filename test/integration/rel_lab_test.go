package integration

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// relLab is a small network of test hosts for the reliability tests:
// network namespaces plugged into one bridge, which lives in a namespace
// of its own (the switch), with this process on the same /24 through one
// more veth pair. Every host reaches every other one directly, with no
// routing and no change to this namespace beyond one interface, and the
// test reaches them all (its address is the segment's .1). Partitions are
// iptables rules inside the hosts, in chains of their own (REL_IN hooked
// to INPUT, REL_OUT to OUTPUT, each letting a host's traffic with itself
// through first), so they never touch the test's own traffic unless asked
// to. Everything is removed in t.Cleanup, even after a half-built
// setup.
type relLab struct {
	t      *testing.T
	ip     string // the ip and iptables binaries
	ipt    string
	prefix string // "10.201.X." of the segment
	sw     string // the switch namespace
	rootIf string
	RootIP string // this process's address on the segment
	hosts  []*relHost
}

// relHost is one test host of a relLab: a network namespace with one
// interface on the lab's segment.
type relHost struct {
	lab  *relLab
	Name string // h1, h2, ...
	ns   string
	IP   string
	// ReplIP is the host's second address, the source of its data node's
	// replication connection (bind-source-addr), so that replication can
	// be cut apart from the Sentinels' traffic.
	ReplIP string
	// SentinelPort is the port of the host's Sentinel: Redis's default
	// in a namespace, a free one on loopback.
	SentinelPort int

	mu    sync.Mutex
	rules [][]string // the REL rules in force, for heal and reports
}

var relLabSeq atomic.Int32

// newRelLab builds a lab of n hosts, or skips the test when it cannot
// (not root, no ip or iptables, namespaces or bridges unavailable).
func newRelLab(t *testing.T, n int) *relLab {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to create network namespaces (the test hosts); run the integration tests as root")
	}
	lab := &relLab{t: t, ip: sbin("ip"), ipt: sbin("iptables")}
	if lab.ip == "" || lab.ipt == "" {
		t.Skip("ip or iptables not installed (apt-get install iproute2 iptables; scripts/install-deps.sh does)")
	}
	seq := relLabSeq.Add(1)
	base := fmt.Sprintf("gsr-%d-%d", os.Getpid(), seq)
	lab.sw = base + "-sw"
	lab.rootIf = fmt.Sprintf("gsr%d%d", os.Getpid()%100000, seq)
	addrs, _ := exec.Command(lab.ip, "-o", "-4", "addr", "show").Output()
	for x := (os.Getpid()*7 + int(seq)*37) % 250; ; x = (x + 1) % 250 {
		if !strings.Contains(string(addrs), fmt.Sprintf(" 10.201.%d.", x)) {
			lab.prefix = fmt.Sprintf("10.201.%d.", x)
			break
		}
	}
	lab.RootIP = lab.prefix + "1"
	var names []string
	t.Cleanup(func() {
		for _, ns := range names {
			exec.Command(lab.ip, "netns", "del", ns).Run()
		}
		exec.Command(lab.ip, "link", "del", lab.rootIf).Run()
	})
	if out, err := exec.Command(lab.ip, "netns", "add", lab.sw).CombinedOutput(); err != nil {
		t.Skipf("network namespaces unavailable: ip netns add: %v: %s", err, out)
	}
	names = append(names, lab.sw)
	if out, err := exec.Command(lab.ip, "-n", lab.sw, "link", "add", "br0", "type", "bridge").CombinedOutput(); err != nil {
		t.Skipf("bridges unavailable: ip link add type bridge: %v: %s", err, out)
	}
	lab.must("-n", lab.sw, "link", "set", "br0", "up")
	lab.must("link", "add", lab.rootIf, "type", "veth", "peer", "name", "up0", "netns", lab.sw)
	lab.must("-n", lab.sw, "link", "set", "up0", "master", "br0", "up")
	lab.must("addr", "add", lab.RootIP+"/24", "dev", lab.rootIf)
	lab.must("link", "set", lab.rootIf, "up")
	for i := 1; i <= n; i++ {
		h := &relHost{lab: lab, Name: fmt.Sprintf("h%d", i), ns: fmt.Sprintf("%s-h%d", base, i), IP: fmt.Sprintf("%s%d", lab.prefix, 10+i),
			ReplIP: fmt.Sprintf("%s%d", lab.prefix, 110+i), SentinelPort: 26379}
		lab.must("netns", "add", h.ns)
		names = append(names, h.ns)
		port := fmt.Sprintf("p%d", i)
		lab.must("-n", lab.sw, "link", "add", port, "type", "veth", "peer", "name", "eth0", "netns", h.ns)
		lab.must("-n", lab.sw, "link", "set", port, "master", "br0", "up")
		lab.must("-n", h.ns, "addr", "add", h.IP+"/24", "dev", "eth0")
		lab.must("-n", h.ns, "addr", "add", h.ReplIP+"/24", "dev", "eth0")
		lab.must("-n", h.ns, "link", "set", "eth0", "up")
		lab.must("-n", h.ns, "link", "set", "lo", "up")
		h.iptables("-N", "REL_IN")
		h.iptables("-N", "REL_OUT")
		h.iptables("-I", "INPUT", "-j", "REL_IN")
		h.iptables("-I", "OUTPUT", "-j", "REL_OUT")
		h.iptables("-A", "REL_IN", "-i", "lo", "-j", "RETURN")
		h.iptables("-A", "REL_OUT", "-o", "lo", "-j", "RETURN")
		lab.hosts = append(lab.hosts, h)
	}
	// The segment is up once every host answers a TCP dial from here
	// with a refusal (nothing listens yet).
	for _, h := range lab.hosts {
		h := h
		waitFor(t, 10*time.Second, "the lab segment to carry packets to "+h.Name, func() bool {
			return relRefused(h.IP)
		})
	}
	return lab
}

// newRelLoopLab is a lab of n hosts that all are this machine's loopback
// (127.0.0.1, each process on a free port of its own), for the tests that
// need several hosts but no partition, and so no root.
func newRelLoopLab(t *testing.T, n int) *relLab {
	lab := &relLab{t: t, RootIP: "127.0.0.1"}
	for i := 1; i <= n; i++ {
		lab.hosts = append(lab.hosts, &relHost{lab: lab, Name: fmt.Sprintf("h%d", i), IP: "127.0.0.1", ReplIP: "127.0.0.1",
			SentinelPort: freePort(t)})
	}
	return lab
}

// port is the port a process listening on base by default uses on the
// host: base in a namespace, a free one on loopback.
func (h *relHost) port(t *testing.T, base int) int {
	if h.ns == "" {
		return freePort(t)
	}
	return base
}

// relRefused reports whether a TCP dial to ip:1 is refused at once, which
// proves the address is reachable.
func relRefused(ip string) bool {
	out, _ := exec.Command("bash", "-c", fmt.Sprintf("exec 3<>/dev/tcp/%s/1", ip)).CombinedOutput()
	return strings.Contains(string(out), "refused")
}

func (lab *relLab) must(args ...string) {
	lab.t.Helper()
	if out, err := exec.Command(lab.ip, args...).CombinedOutput(); err != nil {
		lab.t.Fatalf("ip %s: %v: %s", strings.Join(args, " "), err, out)
	}
}

// run starts name with args inside the host (ip netns exec execs it, so
// the process is the command itself); it is ended in t.Cleanup.
func (h *relHost) run(t *testing.T, dir, name string, args ...string) *proc {
	t.Helper()
	if h.ns == "" {
		return start(t, dir, nil, name, args...)
	}
	return start(t, dir, nil, h.lab.ip, append([]string{"netns", "exec", h.ns, name}, args...)...)
}

// iptables runs iptables inside the host.
func (h *relHost) iptables(args ...string) {
	h.lab.t.Helper()
	if h.ns == "" {
		h.lab.t.Fatal("a loopback lab cannot cut hosts apart")
	}
	out, err := exec.Command(h.lab.ip, append([]string{"netns", "exec", h.ns, h.lab.ipt, "-w"}, args...)...).CombinedOutput()
	if err != nil {
		h.lab.t.Fatalf("iptables on %s %s: %v: %s", h.Name, strings.Join(args, " "), err, out)
	}
}

// dropIn and dropOut add a rule to the host's REL_IN (incoming) or
// REL_OUT (outgoing) chain dropping what matches spec (iptables match
// arguments).
func (h *relHost) dropIn(spec ...string)  { h.drop("REL_IN", spec) }
func (h *relHost) dropOut(spec ...string) { h.drop("REL_OUT", spec) }

func (h *relHost) drop(chain string, spec []string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.iptables(append(append([]string{"-A", chain}, spec...), "-j", "DROP")...)
	h.rules = append(h.rules, append([]string{chain}, spec...))
}

// heal removes every rule the host's chains hold.
func (h *relHost) heal() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.rules) == 0 {
		return
	}
	h.iptables("-F", "REL_IN")
	h.iptables("-F", "REL_OUT")
	h.iptables("-A", "REL_IN", "-i", "lo", "-j", "RETURN")
	h.iptables("-A", "REL_OUT", "-o", "lo", "-j", "RETURN")
	h.rules = nil
}

// cutOff drops every packet between the host and the other lab hosts;
// the test process (RootIP) still reaches it, like a client on the
// host's side of a partition.
func (h *relHost) cutOff() {
	others := h.lab.prefix + "2-" + h.lab.prefix + "254"
	h.dropIn("-m", "iprange", "--src-range", others)
	h.dropOut("-m", "iprange", "--dst-range", others)
}

// cutFrom drops every packet between the host and peer, both ways (the
// rules live on the host only).
func (h *relHost) cutFrom(peer *relHost) {
	for _, ip := range []string{peer.IP, peer.ReplIP} {
		h.dropIn("-s", ip)
		h.dropOut("-d", ip)
	}
}

// cutPort drops the TCP connections between the host and peer that go
// to port on either side: the host's connections to peer:port and
// peer's connections to the host's port.
func (h *relHost) cutPort(peer *relHost, port int) {
	p := fmt.Sprint(port)
	h.dropOut("-d", peer.IP, "-p", "tcp", "--dport", p)
	h.dropIn("-s", peer.IP, "-p", "tcp", "--dport", p)
}

// cutReplication drops the replication connection between the host's
// data node (a replica, connecting from ReplIP) and peer's, both ways;
// the Sentinels still reach both nodes.
func (h *relHost) cutReplication(peer *relHost) {
	h.dropOut("-s", h.ReplIP, "-d", peer.IP)
	h.dropIn("-s", peer.IP, "-d", h.ReplIP)
}

// healAll heals every host of the lab.
func (lab *relLab) healAll() {
	for _, h := range lab.hosts {
		h.heal()
	}
}

// dial opens a TCP connection from inside the host, so that it is on the
// host's side of every partition: the socket is created by a thread that
// entered the host's network namespace (setns), and that thread is
// retired afterwards (the goroutine ends locked to it), never used for
// anything else. On a loopback lab it dials from this process.
func (h *relHost) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	if h.ns == "" {
		var d net.Dialer
		return d.DialContext(ctx, network, addr)
	}
	type result struct {
		c   net.Conn
		err error
	}
	ch := make(chan result, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
		fd, err := syscall.Open("/run/netns/"+h.ns, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err != nil {
			ch <- result{nil, fmt.Errorf("open the namespace of %s: %w", h.Name, err)}
			return
		}
		defer syscall.Close(fd)
		if err := unix.Setns(fd, unix.CLONE_NEWNET); err != nil {
			ch <- result{nil, fmt.Errorf("enter the namespace of %s: %w", h.Name, err)}
			return
		}
		var d net.Dialer
		c, err := d.DialContext(ctx, network, addr)
		ch <- result{c, err}
	}()
	r := <-ch
	return r.c, r.err
}
