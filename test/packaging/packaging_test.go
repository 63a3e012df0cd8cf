// Package packaging tests what installs go-sentinel: `make install`, the
// systemd units, `make deb` and `make image`. The tests run the Makefile
// targets into temporary directories and check every file they produce;
// nothing is installed on the machine unless a test says so and is
// explicitly allowed to.
package packaging

import (
	"bytes"
	"debug/elf"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// cleanups run after every test of the package (shared build outputs).
var cleanups []func()

func TestMain(m *testing.M) {
	code := m.Run()
	for _, f := range cleanups {
		f()
	}
	os.Exit(code)
}

// repoRoot returns the repository's top directory (two levels up).
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// goTool returns the go command, from PATH or /usr/local/go.
func goTool(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	if _, err := os.Stat("/usr/local/go/bin/go"); err == nil {
		return "/usr/local/go/bin/go"
	}
	t.Skip("no go command")
	return ""
}

// runMake runs make with args in the repository and returns its output; it
// fails the test when make fails.
func runMake(t *testing.T, env []string, args ...string) string {
	t.Helper()
	args = append([]string{"--no-print-directory", "-C", repoRoot(t), "GO=" + goTool(t)}, args...)
	cmd := exec.Command("make", args...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("make %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// entry is a file of an installed tree: its type and permission bits, and
// for symlinks the target.
type entry struct {
	mode   fs.FileMode
	target string
}

func (e entry) String() string {
	if e.target != "" {
		return fmt.Sprintf("%v -> %s", e.mode, e.target)
	}
	return e.mode.String()
}

// tree lists every file and directory under dir (relative paths, dir
// itself left out) with its mode.
func tree(t *testing.T, dir string) map[string]entry {
	t.Helper()
	got := map[string]entry{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if path == dir {
			return nil
		}
		fi, err := os.Lstat(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		e := entry{mode: fi.Mode() & (fs.ModeType | fs.ModePerm | fs.ModeSetgid | fs.ModeSetuid | fs.ModeSticky)}
		if fi.Mode()&fs.ModeSymlink != 0 {
			e.target, _ = os.Readlink(path)
		}
		got[rel] = e
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// compareTrees reports every difference between want and got.
func compareTrees(t *testing.T, what string, want, got map[string]entry) {
	t.Helper()
	var diffs []string
	for p, w := range want {
		g, ok := got[p]
		switch {
		case !ok:
			diffs = append(diffs, fmt.Sprintf("missing %s (want %v)", p, w))
		case g != w:
			diffs = append(diffs, fmt.Sprintf("%s is %v, want %v", p, g, w))
		}
	}
	for p, g := range got {
		if _, ok := want[p]; !ok {
			diffs = append(diffs, fmt.Sprintf("unexpected %s (%v)", p, g))
		}
	}
	if len(diffs) > 0 {
		sort.Strings(diffs)
		t.Errorf("%s:\n  %s", what, strings.Join(diffs, "\n  "))
	}
}

// withParents adds every parent directory of the paths in files as a
// 0755 directory.
func withParents(files map[string]entry) map[string]entry {
	all := map[string]entry{}
	for p, e := range files {
		all[p] = e
		for d := filepath.Dir(p); d != "."; d = filepath.Dir(d) {
			all[d] = entry{mode: fs.ModeDir | 0o755}
		}
	}
	return all
}

// checkStatic fails the test unless path is an ELF executable without an
// interpreter (statically linked).
func checkStatic(t *testing.T, path string) {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Errorf("%s is dynamically linked (has PT_INTERP)", path)
		}
	}
	if libs, _ := f.ImportedLibraries(); len(libs) > 0 {
		t.Errorf("%s needs shared libraries %v", path, libs)
	}
}

// readText returns the content of a file.
func readText(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// openToAll makes dir and its parents up to the temp root traversable by
// every user, so that a test can run binaries under it as another user.
func openToAll(t *testing.T, dir string) {
	t.Helper()
	tmp := filepath.Clean(os.TempDir())
	for d := dir; strings.HasPrefix(d, tmp+"/"); d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(d, fi.Mode().Perm()|0o055); err != nil {
			t.Fatal(err)
		}
	}
}

// freePort returns a loopback TCP port nobody listens on.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// syncBuffer is a bytes.Buffer safe for a process writing while the test
// reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// daemon is a go-sentinel process started by a test.
type daemon struct {
	cmd  *exec.Cmd
	out  *syncBuffer
	done chan struct{}
}

// startDaemon starts cmd in its own process group, ends the group with
// SIGKILL in t.Cleanup if cmd is still running, and waits until it answers
// PING on port.
func startDaemon(t *testing.T, cmd *exec.Cmd, port int) *daemon {
	t.Helper()
	d := &daemon{cmd: cmd, out: &syncBuffer{}, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = d.out, d.out
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	// A child that keeps the output pipe open must not hold Wait forever.
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %v: %v", cmd.Args, err)
	}
	go func() { cmd.Wait(); close(d.done) }()
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-d.done
		if t.Failed() {
			t.Logf("output of %v:\n%s", cmd.Args, d.out.String())
		}
	})
	deadline := time.Now().Add(15 * time.Second)
	for !ping(port) {
		select {
		case <-d.done:
			t.Fatalf("%v exited early (%v):\n%s", cmd.Args, cmd.ProcessState, d.out.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%v does not answer PING on :%d:\n%s", cmd.Args, port, d.out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	return d
}

// stop sends SIGTERM to pid (the started process when 0) and returns the
// started process's exit code.
func (d *daemon) stop(t *testing.T, pid int) int {
	t.Helper()
	if pid == 0 {
		pid = d.cmd.Process.Pid
	}
	syscall.Kill(pid, syscall.SIGTERM)
	select {
	case <-d.done:
		return d.cmd.ProcessState.ExitCode()
	case <-time.After(15 * time.Second):
		t.Fatalf("%v still running 15s after SIGTERM", d.cmd.Args)
		return -1
	}
}

// ping sends an inline PING to a loopback port and reports whether +PONG
// came back.
func ping(port int) bool {
	return strings.HasPrefix(command(port, "PING"), "+PONG")
}

// command sends one inline command to a loopback port and returns the
// first reply bytes it gets (up to 4 KiB), or "" on error.
func command(port int, line string) string {
	nc, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), time.Second)
	if err != nil {
		return ""
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(2 * time.Second))
	if _, err := nc.Write([]byte(line + "\r\n")); err != nil {
		return ""
	}
	b := make([]byte, 4096)
	n, _ := nc.Read(b)
	return string(b[:n])
}

// asUser sets cmd to run with uid and gid and no supplementary groups.
func asUser(cmd *exec.Cmd, uid, gid uint32) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Credential = &syscall.Credential{Uid: uid, Gid: gid, Groups: []uint32{}}
}

// needRoot skips the test unless it runs as root.
func needRoot(t *testing.T, why string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skipf("needs root: %s", why)
	}
}

// withDocs returns files with README.md and every docs/*.md of the
// repository added under dir, as install.sh installs them.
func withDocs(t *testing.T, files map[string]entry, dir string) map[string]entry {
	t.Helper()
	docs, err := filepath.Glob(filepath.Join(repoRoot(t), "docs", "*.md"))
	if err != nil || len(docs) == 0 {
		t.Fatalf("no docs/*.md: %v", err)
	}
	out := make(map[string]entry, len(files)+len(docs)+1)
	for k, v := range files {
		out[k] = v
	}
	for _, d := range append(docs, "README.md") {
		out[dir+"/"+filepath.Base(d)] = entry{mode: 0o644}
	}
	return out
}
