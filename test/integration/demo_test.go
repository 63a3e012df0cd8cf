package integration

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// demoPorts are the ports scripts/demo.sh uses before DEMO_PORT_OFFSET.
var demoPorts = []int{6380, 6381, 6382, 26379, 26380, 26381, 9355, 9356, 9357, 9090}

// demoOffset returns a port offset at which every demo port is free.
func demoOffset(t *testing.T) int {
	t.Helper()
	for off := 31000; off+26381 < 65536; off += 97 {
		free := true
		for _, p := range demoPorts {
			ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p+off))
			if err != nil {
				free = false
				break
			}
			ln.Close()
		}
		if free {
			return off
		}
	}
	t.Fatal("no free port range for the demo")
	return 0
}

// startGroup runs name with args in a process group of its own, and ends
// the whole group (SIGKILL) in t.Cleanup: the demo's children must not
// outlive a failed test, nor hold its output pipe open.
func startGroup(t *testing.T, env []string, name string, args ...string) *proc {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.WaitDelay = 5 * time.Second // children that keep the pipe do not hold Wait
	kill := func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	p := run(t, cmd, kill)
	t.Cleanup(kill) // runs first: the group goes even when the script has exited
	return p
}

// TestDemo runs `make demo DEMO_PROMETHEUS=1`'s script as a new user would
// and follows its text: the Sentinels answer and serve metrics, the
// explain and check commands it prints work, Prometheus runs with the
// alert rules loaded, and SIGTERM tears everything down.
func TestDemo(t *testing.T) {
	mustBinary(t, "prometheus", "prometheus")
	needBinary(t, "redis-server")
	off := demoOffset(t)
	script, err := filepath.Abs("../../scripts/demo.sh")
	if err != nil {
		t.Fatal(err)
	}
	sh := startGroup(t, []string{fmt.Sprintf("DEMO_PORT_OFFSET=%d", off), "DEMO_PROMETHEUS=1", "DEMO_BIN=" + sentinelBin},
		"bash", script)
	waitFor(t, 20*time.Second, "the demo's text", func() bool {
		if done, _ := sh.exited(); done {
			t.Fatalf("the demo exited:\n%s", sh.out.String())
		}
		return strings.Contains(sh.out.String(), "Press Ctrl-C")
	})
	text := sh.out.String()
	s1 := 26379 + off
	waitFor(t, 20*time.Second, "each Sentinel to know the two replicas and the two other Sentinels", func() bool {
		for _, p := range []int{s1, s1 + 1, s1 + 2} {
			if listLen(t, p, "REPLICAS") != 2 || listLen(t, p, "SENTINELS") != 2 {
				return false
			}
		}
		return true
	})
	m, err := scrape(fmt.Sprintf("127.0.0.1:%d", 9355+off))
	if err != nil || m["redis_sentinel_masters"] != 1 {
		t.Fatalf("metrics: %v, redis_sentinel_masters %v", err, m["redis_sentinel_masters"])
	}

	// The commands the text prints, run as printed.
	explain := regexp.MustCompile(`(\S+ explain mymaster -p \d+)`).FindStringSubmatch(text)
	check := regexp.MustCompile(`(\S+ check \S+) \\\n\s+(--sentinels \S+)`).FindStringSubmatch(text)
	if explain == nil || check == nil {
		t.Fatalf("the text lacks the explain or check command:\n%s", text)
	}
	for _, c := range []string{explain[1], check[1] + " " + check[2]} {
		out, err := exec.Command("bash", "-c", c).CombinedOutput()
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() == 1 && strings.Contains(c, " check ") {
			err = nil // check's status 1: warnings (the demo has no min-replicas guard)
		}
		if err != nil {
			t.Errorf("%s: %v\n%s", c, err, out)
		} else if !strings.Contains(string(out), "mymaster") {
			t.Errorf("%s says nothing of mymaster:\n%s", c, out)
		}
	}

	pr := &prometheus{addr: fmt.Sprintf("127.0.0.1:%d", 9090+off)}
	if !strings.Contains(text, pr.addr+"/alerts") {
		t.Errorf("the text does not point at Prometheus's alerts page:\n%s", text)
	}
	var rules struct {
		Groups []struct {
			Name string `json:"name"`
		} `json:"groups"`
	}
	waitFor(t, 30*time.Second, "Prometheus with the go-sentinel rules", func() bool {
		if pr.get("/api/v1/rules", &rules) != nil || len(rules.Groups) != 2 {
			return false
		}
		return rules.Groups[0].Name == "go-sentinel.alerts" || rules.Groups[1].Name == "go-sentinel.alerts"
	})

	sh.signal(syscall.SIGTERM)
	sh.waitExit(20 * time.Second)
	if !strings.Contains(sh.out.String(), "tearing down") {
		t.Errorf("no teardown:\n%s", sh.out.String())
	}
	waitFor(t, 10*time.Second, "every demo port to be closed", func() bool {
		for _, p := range demoPorts {
			c := http.Client{Timeout: 200 * time.Millisecond}
			if resp, err := c.Get(fmt.Sprintf("http://127.0.0.1:%d/", p+off)); err == nil {
				resp.Body.Close()
				return false
			}
			if nc, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", p+off), 200*time.Millisecond); err == nil {
				nc.Close()
				return false
			}
		}
		return true
	})
}
