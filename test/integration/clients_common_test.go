package integration

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// clientScriptSeconds bounds how long a client script writes; the tests end
// it in t.Cleanup long before that.
const clientScriptSeconds = "120"

// clientsDir returns the absolute path of test/integration/clients, where
// the client scripts and the node_modules that .ci/run installs live.
func clientsDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("clients")
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// clientFleet starts the topology every client test runs against: a master,
// two replicas and three go-sentinels (quorum 2) that have discovered each
// other. It returns the topology and the Sentinels' host:port addresses.
func clientFleet(t *testing.T) (*topology, []string) {
	t.Helper()
	top := startData(t, 2)
	for i := 0; i < 3; i++ {
		top.addGoSentinel(2, "")
	}
	waitDiscovery(t, top)
	var addrs []string
	for _, s := range top.sentinels {
		addrs = append(addrs, fmt.Sprintf("127.0.0.1:%d", s.Port))
	}
	return top, addrs
}

// scriptLines returns the complete lines a client script printed so far.
func scriptLines(p *proc) []string {
	out := p.out.String()
	if i := strings.LastIndexByte(out, '\n'); i >= 0 {
		out = out[:i]
	} else {
		return nil
	}
	return strings.Split(out, "\n")
}

// waitLine waits until a line printed at index from or later satisfies match
// and returns its index. It fails the test when the script exits first or
// the deadline passes.
func waitLine(t *testing.T, p *proc, from int, timeout time.Duration, what string, match func(string) bool) int {
	t.Helper()
	found := -1
	waitFor(t, timeout, what, func() bool {
		lines := scriptLines(p)
		for i := from; i < len(lines); i++ {
			if match(lines[i]) {
				found = i
				return true
			}
		}
		if done, code := p.exited(); done {
			t.Fatalf("client script exited (code %d) before %s:\n%s", code, what, p.out.String())
		}
		return false
	})
	return found
}

// isLine returns a matcher for lines equal to want.
func isLine(want string) func(string) bool {
	return func(l string) bool { return l == want }
}

// hasPrefix returns a matcher for lines starting with prefix.
func hasPrefix(prefix string) func(string) bool {
	return func(l string) bool { return strings.HasPrefix(l, prefix) }
}

// lastWrite returns the counter value of the last "write ok PORT VALUE" line
// for port, or -1 when there is none.
func lastWrite(p *proc, port int) int {
	lines := scriptLines(p)
	prefix := fmt.Sprintf("write ok %d ", port)
	for i := len(lines) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(lines[i], prefix); ok {
			n, err := strconv.Atoi(v)
			if err == nil {
				return n
			}
		}
	}
	return -1
}

// checkCounterOn checks that the counter on port is at least the last value
// the client reported writing there: the client's writes really landed on
// that server.
func checkCounterOn(t *testing.T, p *proc, port int) {
	t.Helper()
	reported := lastWrite(p, port)
	if reported < 1 {
		t.Fatalf("no successful write reported on :%d", port)
	}
	got, err := client(t, port).Get(context.Background(), "counter").Int()
	if err != nil {
		t.Fatalf("GET counter on :%d: %v", port, err)
	}
	if got < reported {
		t.Fatalf("counter on :%d is %d, the client reported writing %d there", port, got, reported)
	}
}

// runtimeProbe runs a command that tells whether a client runtime is usable.
func runtimeProbe(dir, name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = os.Environ()
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s %v: %w: %s", name, args, err, strings.TrimSpace(string(out)))
	}
	return nil
}

// scriptSummary condenses a client script's output for the test log:
// successful writes and reads are shown only when the server they went to
// changes, and any other line only the first time it appears since the last
// such change (with a count of what was left out), so a failover reads as a
// short story. Totals per server come last.
func scriptSummary(p *proc) string {
	var b strings.Builder
	lastOK := map[string]string{}
	counts := map[string]int{}
	var order []string
	seen := map[string]bool{}
	skipped := 0
	flush := func() {
		if skipped > 0 {
			fmt.Fprintf(&b, "  ... %d repeated lines left out\n", skipped)
		}
		skipped = 0
		seen = map[string]bool{}
	}
	for _, l := range scriptLines(p) {
		f := strings.Fields(l)
		if len(f) >= 3 && (f[0] == "write" || f[0] == "read") && f[1] == "ok" {
			key := f[0] + " ok " + f[2]
			if counts[key] == 0 {
				order = append(order, key)
			}
			counts[key]++
			if lastOK[f[0]] != f[2] {
				lastOK[f[0]] = f[2]
				flush()
				fmt.Fprintf(&b, "  %s\n", l)
			}
			continue
		}
		if seen[l] {
			skipped++
			continue
		}
		seen[l] = true
		fmt.Fprintf(&b, "  %s\n", l)
	}
	flush()
	for _, k := range order {
		fmt.Fprintf(&b, "  total %s: %d\n", k, counts[k])
	}
	return b.String()
}
