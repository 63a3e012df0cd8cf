package integration

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// netnsHost is a test host: a network namespace joined to this one by a
// veth pair, hostIP on this side and IP inside, on a /30 of 10.200.0.0/16
// that no interface here uses. Processes run inside with run; drop and
// restore make it unreachable and reachable again.
type netnsHost struct {
	t      *testing.T
	ip     string // the ip and iptables binaries
	ipt    string
	name   string
	hostIf string
	hostIP string
	IP     string
}

var netnsSeq atomic.Int32

// newNetnsHost creates the namespace, or skips the test when it cannot
// (not root, no ip or iptables, namespaces unavailable). The namespace
// and the veth pair are removed in t.Cleanup, even when the test fails
// half-way through setting them up.
func newNetnsHost(t *testing.T) *netnsHost {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to create a network namespace")
	}
	seq := netnsSeq.Add(1)
	n := &netnsHost{t: t, name: fmt.Sprintf("gs-it-%d-%d", os.Getpid(), seq), ip: sbin("ip"), ipt: sbin("iptables")}
	if n.ip == "" || n.ipt == "" {
		t.Skip("ip or iptables not installed (apt-get install iproute2 iptables; scripts/install-deps.sh does)")
	}
	n.hostIf = fmt.Sprintf("gsv%d%d", os.Getpid()%100000, seq)
	peerIf := n.hostIf + "p"
	addrs, _ := exec.Command(n.ip, "-o", "-4", "addr", "show").Output()
	for x := (os.Getpid() + int(seq)*37) % 250; ; x = (x + 1) % 250 {
		if !strings.Contains(string(addrs), fmt.Sprintf(" 10.200.%d.", x)) {
			n.hostIP, n.IP = fmt.Sprintf("10.200.%d.1", x), fmt.Sprintf("10.200.%d.2", x)
			break
		}
	}
	t.Cleanup(func() {
		exec.Command(n.ip, "netns", "del", n.name).Run()
		exec.Command(n.ip, "link", "del", n.hostIf).Run()
	})
	if out, err := exec.Command(n.ip, "netns", "add", n.name).CombinedOutput(); err != nil {
		t.Skipf("network namespaces unavailable: ip netns add: %v: %s", err, out)
	}
	for _, args := range [][]string{
		{"link", "add", n.hostIf, "type", "veth", "peer", "name", peerIf, "netns", n.name},
		{"addr", "add", n.hostIP + "/30", "dev", n.hostIf},
		{"link", "set", n.hostIf, "up"},
		{"-n", n.name, "addr", "add", n.IP + "/30", "dev", peerIf},
		{"-n", n.name, "link", "set", peerIf, "up"},
		{"-n", n.name, "link", "set", "lo", "up"},
	} {
		if out, err := exec.Command(n.ip, args...).CombinedOutput(); err != nil {
			t.Fatalf("ip %s: %v: %s", strings.Join(args, " "), err, out)
		}
	}
	return n
}

// run starts name with args inside the namespace (ip netns exec execs it,
// so the process is the command itself); it is ended in t.Cleanup.
func (n *netnsHost) run(dir, name string, args ...string) *proc {
	n.t.Helper()
	return start(n.t, dir, nil, n.ip, append([]string{"netns", "exec", n.name, name}, args...)...)
}

// iptables runs iptables inside the namespace.
func (n *netnsHost) iptables(args ...string) {
	n.t.Helper()
	out, err := exec.Command(n.ip, append([]string{"netns", "exec", n.name, "iptables"}, args...)...).CombinedOutput()
	if err != nil {
		n.t.Fatalf("iptables %s: %v: %s", strings.Join(args, " "), err, out)
	}
}

// drop makes the host silently drop every packet it receives: connections
// stay open, nothing is answered, new connections time out.
func (n *netnsHost) drop() { n.iptables("-I", "INPUT", "-j", "DROP") }

// restore undoes drop.
func (n *netnsHost) restore() { n.iptables("-D", "INPUT", "-j", "DROP") }

// sbin finds an administration binary, which may not be in PATH; "" when
// it is not installed.
func sbin(name string) string {
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	for _, dir := range []string{"/usr/sbin", "/sbin"} {
		if st, err := os.Stat(dir + "/" + name); err == nil && st.Mode()&0o111 != 0 {
			return dir + "/" + name
		}
	}
	return ""
}

// aliveAt reports whether a Redis server answers an inline PING at
// host:port within a second.
func aliveAt(host string, port int) bool {
	nc, err := net.DialTimeout("tcp", net.JoinHostPort(host, fmt.Sprint(port)), time.Second)
	if err != nil {
		return false
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(time.Second))
	if _, err := nc.Write([]byte("PING\r\n")); err != nil {
		return false
	}
	b := make([]byte, 1)
	_, err = nc.Read(b)
	return err == nil && b[0] == '+'
}
