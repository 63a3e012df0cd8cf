package packaging

import (
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// dpkgTestEnv must be set to 1 for TestDebInstallsNextToRedisSentinel to
// install the package on this machine: for throwaway machines (CI) only.
const dpkgTestEnv = "GO_SENTINEL_TEST_DPKG"

// redisState is what must not change about Debian's redis packages when
// go-sentinel is installed and removed.
type redisState struct {
	status, verify, binary, conf string
}

func captureRedisState(t *testing.T) redisState {
	t.Helper()
	var s redisState
	out, _ := exec.Command("dpkg-query", "-W", "-f", "${Package} ${Status} ${Version}\n", "redis-sentinel", "redis-server", "redis-tools").CombinedOutput()
	s.status = string(out)
	out, _ = exec.Command("dpkg", "--verify", "redis-sentinel", "redis-server", "redis-tools").CombinedOutput()
	s.verify = string(out)
	if b, err := os.ReadFile("/usr/bin/redis-sentinel"); err == nil {
		s.binary = fmt.Sprintf("%x", sha256.Sum256(b))
	}
	if fi, err := os.Stat("/etc/redis/sentinel.conf"); err == nil {
		b, _ := os.ReadFile("/etc/redis/sentinel.conf")
		s.conf = fmt.Sprintf("%v %x", fi.Mode(), sha256.Sum256(b))
	}
	return s
}

// TestDebInstallsNextToRedisSentinel installs the package with dpkg -i on
// this machine, next to Debian's redis-sentinel, runs the installed daemon
// as its user with its config, then removes and purges the package:
// redis-sentinel's status, files and config are the same throughout, and
// removal takes the redis-sentinel.service switch away. It only runs as
// root with GO_SENTINEL_TEST_DPKG=1 (throwaway machines), and when
// go-sentinel is not installed already.
func TestDebInstallsNextToRedisSentinel(t *testing.T) {
	if os.Getenv(dpkgTestEnv) != "1" {
		t.Skipf("installs a package on this machine: set %s=1 on a throwaway machine", dpkgTestEnv)
	}
	needRoot(t, "dpkg -i")
	if out, err := exec.Command("dpkg-query", "-W", "-f", "${Status}", "go-sentinel").Output(); err == nil && strings.Contains(string(out), "installed") {
		t.Skipf("go-sentinel is already installed (%s): not touching it", out)
	}
	if _, err := exec.Command("dpkg-query", "-W", "redis-sentinel").Output(); err != nil {
		t.Skip("redis-sentinel is not installed; .ci/run installs it")
	}
	deb := buildDeb(t)
	_, userErr := exec.Command("getent", "passwd", "go-sentinel").Output()
	userExisted := userErr == nil
	dpkg := func(args ...string) {
		t.Helper()
		out, err := exec.Command("dpkg", args...).CombinedOutput()
		if err != nil {
			t.Fatalf("dpkg %v: %v\n%s", args, err, out)
		}
	}
	t.Cleanup(func() {
		exec.Command("dpkg", "--purge", "go-sentinel").Run()
		os.Remove("/" + switchLink)
		os.Remove(filepath.Dir("/" + switchLink))
		if !userExisted {
			exec.Command("deluser", "--system", "--quiet", "go-sentinel").Run()
			exec.Command("delgroup", "--system", "--quiet", "go-sentinel").Run()
			os.RemoveAll("/var/lib/go-sentinel")
			os.RemoveAll("/var/log/go-sentinel")
		}
	})

	before := captureRedisState(t)
	dpkg("-i", deb)
	if after := captureRedisState(t); after != before {
		t.Errorf("installing go-sentinel changed Debian's redis packages:\nbefore %+v\nafter  %+v", before, after)
	}
	if out, _ := exec.Command("dpkg", "--audit").CombinedOutput(); len(strings.TrimSpace(string(out))) > 0 {
		t.Errorf("dpkg --audit after installing:\n%s", out)
	}
	out, err := exec.Command("getent", "passwd", "go-sentinel").Output()
	if err != nil {
		t.Fatalf("no go-sentinel user after installing: %v", err)
	}
	f := strings.Split(strings.TrimSpace(string(out)), ":")
	uid, _ := strconv.Atoi(f[2])
	gid, _ := strconv.Atoi(f[3])
	conf := "/etc/go-sentinel/sentinel.conf"
	checkOwner(t, conf, 0o640, uint32(uid), uint32(gid))
	if out, err := exec.Command("/usr/bin/go-sentinel", "check", conf).CombinedOutput(); err != nil {
		t.Errorf("go-sentinel check %s: %v\n%s", conf, err, out)
	}

	// The unit's command line, as the unit's user, with a free port.
	u := parseUnit(t, "/lib/systemd/system/go-sentinel.service")
	argv := strings.Fields(u.values("Service", "ExecStart")[0])
	port := freePort(t)
	cmd := exec.Command(argv[0], append(argv[1:], "--port", strconv.Itoa(port), "--pidfile", "")...)
	cmd.Dir = "/"
	asUser(cmd, uint32(uid), uint32(gid))
	d := startDaemon(t, cmd, port)
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(readText(t, conf), "sentinel myid ") && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if code := d.stop(t, 0); code != 0 {
		t.Errorf("exit code %d", code)
	}
	if !strings.Contains(readText(t, conf), "sentinel myid ") {
		t.Errorf("the go-sentinel user could not rewrite %s", conf)
	}

	// The admin switches redis-sentinel.service over, then removes the
	// package: the switch goes with it.
	os.MkdirAll(filepath.Dir("/"+switchLink), 0o755)
	if err := os.Symlink(switchTarget, "/"+switchLink); err != nil {
		t.Fatal(err)
	}
	dpkg("--remove", "go-sentinel")
	if _, err := os.Lstat("/" + switchLink); err == nil {
		t.Error("removing go-sentinel left redis-sentinel.service pointing at it")
	}
	if _, err := os.Stat("/usr/bin/go-sentinel"); err == nil {
		t.Error("/usr/bin/go-sentinel still there after removal")
	}
	if _, err := os.Stat(conf); err != nil {
		t.Errorf("removal (not purge) took the config: %v", err)
	}
	dpkg("--purge", "go-sentinel")
	if _, err := os.Stat("/etc/go-sentinel"); err == nil {
		t.Error("/etc/go-sentinel still there after purge")
	}
	if after := captureRedisState(t); after != before {
		t.Errorf("installing and purging go-sentinel changed Debian's redis packages:\nbefore %+v\nafter  %+v", before, after)
	}
}
