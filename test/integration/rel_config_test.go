package integration

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// relMountTmpfs mounts a tmpfs of sizeKB KiB on a fresh directory and
// unmounts it in t.Cleanup; it skips the test when it cannot (not root,
// mounts not allowed).
func relMountTmpfs(t *testing.T, sizeKB int) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to mount a small tmpfs for the config directory")
	}
	dir, err := os.MkdirTemp("", "rel-tmpfs-")
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", fmt.Sprintf("size=%dk,mode=0755", sizeKB), "tmpfs", dir).CombinedOutput(); err != nil {
		os.Remove(dir)
		t.Skipf("cannot mount a tmpfs: %v: %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
			exec.Command("umount", "-l", dir).Run()
		}
		os.Remove(dir)
	})
	return dir
}

// relRemount remounts a tmpfs read-only ("ro") or read-write ("rw").
func relRemount(t *testing.T, dir, mode string) {
	t.Helper()
	if out, err := exec.Command("mount", "-o", "remount,"+mode, dir).CombinedOutput(); err != nil {
		t.Fatalf("remount %s %s: %v: %s", mode, dir, err, out)
	}
}

// relFill fills the filesystem of dir with one file and returns its path.
func relFill(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "fill")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 4096)
	for {
		if _, err := f.Write(buf); err != nil {
			if !strings.Contains(err.Error(), "no space left") {
				t.Fatalf("filling %s: %v", dir, err)
			}
			return path
		}
	}
}

// relSaveFailed is the log line of a failed config rewrite, Redis's.
const relSaveFailed = "WARNING: Sentinel was not able to save the new configuration on disk!!!: "

// TestRelConfigUnwritableWhileRunning makes the config directory of a
// running go-sentinel and of a redis-sentinel (the reference) unwritable,
// in two ways: the tmpfs it lives on is remounted read-only, or it is
// filled up. The two Sentinels (quorum 1, so either can fail over; both
// must vote) watch a master with one replica; the master is killed. Each
// must log its failed rewrites with Redis's warning, fail over all the
// same, and leave its config file exactly as it was; once the directory
// is writable again, the next rewrite (SENTINEL SET) saves the new
// master. The two daemons' warnings are logged side by side.
func TestRelConfigUnwritableWhileRunning(t *testing.T) {
	for _, fault := range []string{"read-only", "disk full"} {
		t.Run(fault, func(t *testing.T) {
			mnt := relMountTmpfs(t, 256)
			top := startData(t, 1)
			lab := newRelLoopLab(t, 2)
			var fleet []*relSentinel
			for i, kind := range []daemonKind{goSentinel, redisSentinel} {
				s := lab.hosts[i].startSentinel(t, kind, fmt.Sprintf("sentinel monitor mymaster 127.0.0.1 %d 1\n"+
					"sentinel down-after-milliseconds mymaster 1000\nsentinel failover-timeout mymaster 5000\n", top.master.Port))
				// Move the config onto the tmpfs: stop, move, start again.
				s.p.signal(syscall.SIGTERM)
				s.p.waitExit(10 * time.Second)
				conf := filepath.Join(mnt, string(kind)+".conf")
				if err := os.WriteFile(conf, []byte(readFile(t, s.conf)), 0o644); err != nil {
					t.Fatal(err)
				}
				s.conf = conf
				s.restart()
				fleet = append(fleet, s)
			}
			for _, s := range fleet {
				s := s
				waitFor(t, 20*time.Second, s.String()+" to know the replica and the other Sentinel", func() bool {
					return s.listLen("REPLICAS", "mymaster") == 1 && s.listLen("SENTINELS", "mymaster") == 1 &&
						strings.Contains(readFile(t, s.conf), "known-sentinel")
				})
			}
			time.Sleep(500 * time.Millisecond) // let the last rewrite of discovery land
			saved := map[*relSentinel]string{}
			marks := map[*relSentinel]int{}
			for _, s := range fleet {
				saved[s] = readFile(t, s.conf)
				marks[s] = len(s.logLines(t))
			}
			var fill string
			if fault == "read-only" {
				relRemount(t, mnt, "ro")
			} else {
				fill = relFill(t, mnt)
			}
			killProc(top.master)
			want := fmt.Sprintf("127.0.0.1:%d", top.replicas[0].Port)
			for _, s := range fleet {
				s := s
				waitFor(t, 30*time.Second, s.String()+" to switch to the replica", func() bool { return s.masterAddr("mymaster") == want })
			}
			waitFor(t, 20*time.Second, "the replica to be promoted", func() bool { r, _ := role(t, top.replicas[0].Port); return r == "master" })
			for _, s := range fleet {
				var warnings []string
				for _, l := range s.logLines(t)[marks[s]:] {
					if strings.HasPrefix(l.text, relSaveFailed) {
						warnings = append(warnings, l.text)
					}
				}
				if len(warnings) == 0 {
					t.Errorf("%s logged no failed rewrite", s)
				} else {
					t.Logf("%s, %s: %d failed rewrites during the failover, e.g. %q", fault, s, len(warnings), warnings[0])
				}
				if got := readFile(t, s.conf); got != saved[s] {
					t.Errorf("%s: the config file changed while unwritable:\n%s\nwas:\n%s", s, got, saved[s])
				}
				if left, _ := filepath.Glob(s.conf + ".*"); len(left) != 0 {
					t.Errorf("%s left temporary files: %v", s, left)
				}
			}
			if fault == "read-only" {
				relRemount(t, mnt, "rw")
			} else if err := os.Remove(fill); err != nil {
				t.Fatal(err)
			}
			for _, s := range fleet {
				if _, err := s.do("SENTINEL", "SET", "mymaster", "down-after-milliseconds", "1100"); err != nil {
					t.Fatalf("%s: SENTINEL SET: %v", s, err)
				}
				line := fmt.Sprintf("sentinel monitor mymaster 127.0.0.1 %d 1", top.replicas[0].Port)
				if !hasLine(readFile(t, s.conf), line) {
					t.Errorf("%s: after the directory came back, the config lacks %q:\n%s", s, line, readFile(t, s.conf))
				}
			}
		})
	}
}

// TestRelConfigUnwritableAtStart starts go-sentinel and redis-sentinel on
// configs that cannot be written, and compares: a config file on a
// read-only filesystem is refused at start by both (Redis checks
// access(W_OK) on the file), with the same message and exit code 1; a
// writable config file on a full filesystem is accepted by both (only
// the first rewrite, of the new myid, fails).
func TestRelConfigUnwritableAtStart(t *testing.T) {
	needBinary(t, "redis-sentinel")
	type outcome struct {
		exited bool
		code   int
		out    string
	}
	run := func(t *testing.T, kind daemonKind, conf string) outcome {
		bin := sentinelBin
		if kind == redisSentinel {
			bin = needBinary(t, "redis-sentinel")
		}
		p := start(t, filepath.Dir(conf), nil, bin, conf)
		deadline := time.Now().Add(3 * time.Second)
		for time.Now().Before(deadline) {
			if done, code := p.exited(); done {
				return outcome{true, code, p.out.String()}
			}
			time.Sleep(50 * time.Millisecond)
		}
		killProc(p)
		return outcome{false, 0, p.out.String()}
	}
	t.Run("read-only filesystem", func(t *testing.T) {
		mnt := relMountTmpfs(t, 64)
		conf := filepath.Join(mnt, "sentinel.conf")
		body := fmt.Sprintf("port %d\nsentinel monitor mymaster 127.0.0.1 %d 2\n", freePort(t), freePort(t))
		if err := os.WriteFile(conf, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		relRemount(t, mnt, "ro")
		want := "Sentinel config file " + conf + " is not writable: Read-only file system. Exiting..."
		for _, kind := range []daemonKind{redisSentinel, goSentinel} {
			o := run(t, kind, conf)
			t.Logf("%s: exited %v with %d: %s", kind, o.exited, o.code, strings.TrimSpace(o.out))
			if !o.exited || o.code != 1 || !strings.Contains(o.out, want) {
				t.Errorf("%s: want exit 1 with %q", kind, want)
			}
		}
		if readFile(t, conf) != body {
			t.Error("the config changed")
		}
	})
	t.Run("full filesystem", func(t *testing.T) {
		mnt := relMountTmpfs(t, 64)
		for _, kind := range []daemonKind{redisSentinel, goSentinel} {
			conf := filepath.Join(mnt, string(kind)+".conf")
			port := freePort(t)
			body := fmt.Sprintf("port %d\nsentinel monitor mymaster 127.0.0.1 %d 2\n", port, freePort(t))
			if err := os.WriteFile(conf, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
			fill := relFill(t, mnt)
			o := run(t, kind, conf)
			os.Remove(fill)
			t.Logf("%s: running after 3 s: %v; output: %s", kind, !o.exited, strings.TrimSpace(o.out))
			if o.exited {
				t.Errorf("%s exited with %d on a full filesystem; redis-sentinel starts", kind, o.code)
			}
			if !strings.Contains(o.out, relSaveFailed) {
				t.Errorf("%s did not log the failed rewrite of its new myid", kind)
			}
			if got := readFile(t, conf); got != body {
				t.Errorf("%s: the config changed on a full filesystem:\n%s", kind, got)
			}
		}
	})
}
