package packaging

import (
	"bufio"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// installed is what `make install` puts under DESTDIR with the default
// PREFIX, and the mode of each file.
var installed = map[string]entry{
	"usr/local/bin/go-sentinel":                                             {mode: 0o755},
	"usr/local/share/man/man1/go-sentinel.1":                                {mode: 0o644},
	"usr/local/share/man/man1/go-sentinel-check.1":                          {mode: 0o644},
	"usr/local/share/man/man1/go-sentinel-explain.1":                        {mode: 0o644},
	"usr/local/share/man/man1/go-sentinel-version.1":                        {mode: 0o644},
	"usr/local/share/bash-completion/completions/go-sentinel":               {mode: 0o644},
	"usr/local/share/zsh/site-functions/_go-sentinel":                       {mode: 0o644},
	"usr/local/share/fish/vendor_completions.d/go-sentinel.fish":            {mode: 0o644},
	"usr/local/share/go-sentinel/sentinel.conf.example":                     {mode: 0o644},
	"usr/local/share/go-sentinel/redis-sentinel.service.d/go-sentinel.conf": {mode: 0o644},
	"usr/local/lib/systemd/system/go-sentinel.service":                      {mode: 0o644},
	"usr/local/lib/sysusers.d/go-sentinel.conf":                             {mode: 0o644},
	"usr/local/lib/tmpfiles.d/go-sentinel.conf":                             {mode: 0o644},
}

// TestMakeInstall runs `make install DESTDIR=...` and checks every file it
// installs, its mode and its content: the man pages and completions
// generated from the commands, the unit and the drop-in (verified by
// systemd-analyze where it exists), and the example config.
func TestMakeInstall(t *testing.T) {
	dest := t.TempDir()
	bin := filepath.Join(t.TempDir(), "go-sentinel")
	runMake(t, nil, "install", "DESTDIR="+dest, "BIN="+bin)
	compareTrees(t, "make install DESTDIR=...", withParents(withDocs(t, installed, "usr/local/share/doc/go-sentinel")), tree(t, dest))
	pfx := filepath.Join(dest, "usr/local")
	inst := filepath.Join(pfx, "bin/go-sentinel")

	out, err := exec.Command(inst, "version").Output()
	if err != nil || !strings.HasPrefix(string(out), "go-sentinel ") {
		t.Errorf("installed go-sentinel version: %v: %q", err, out)
	}
	if out, err := exec.Command(inst, "gendocs", t.TempDir()).CombinedOutput(); err == nil {
		t.Errorf("the installed daemon has the gendocs subcommand (it is for -tags gendocs builds):\n%s", out)
	}
	if readText(t, filepath.Join(pfx, "share/go-sentinel/sentinel.conf.example")) != readText(t, filepath.Join(repoRoot(t), "configs/sentinel.conf.example")) {
		t.Error("the installed example differs from configs/sentinel.conf.example")
	}
	checkManPages(t, filepath.Join(pfx, "share/man/man1"), false)
	checkCompletions(t, inst, filepath.Join(pfx, "share/bash-completion/completions/go-sentinel"),
		filepath.Join(pfx, "share/zsh/site-functions/_go-sentinel"),
		filepath.Join(pfx, "share/fish/vendor_completions.d/go-sentinel.fish"))

	unit := filepath.Join(pfx, "lib/systemd/system/go-sentinel.service")
	dropIn := filepath.Join(pfx, "share/go-sentinel/redis-sentinel.service.d/go-sentinel.conf")
	checkGoSentinelUnit(t, unit, "/usr/local/bin")
	checkDropIn(t, dropIn, "/usr/local/bin")
	units := t.TempDir()
	stageUnit(t, unit, units, "go-sentinel.service", "/usr/local/bin/go-sentinel", inst)
	verifyUnits(t, units, "go-sentinel.service")
	if _, err := os.Stat(debianUnit); err == nil {
		units := t.TempDir()
		stageUnit(t, debianUnit, units, "redis-sentinel.service", "", "")
		stageUnit(t, dropIn, units, "redis-sentinel.service.d/go-sentinel.conf", "/usr/local/bin/go-sentinel", inst)
		verifyUnits(t, units, "redis-sentinel.service")
	}
	if got := readText(t, filepath.Join(pfx, "lib/tmpfiles.d/go-sentinel.conf")); !strings.Contains(got,
		"C /etc/go-sentinel/sentinel.conf 0640 go-sentinel go-sentinel - /usr/local/share/go-sentinel/sentinel.conf.example\n") {
		t.Errorf("tmpfiles.d entry does not copy the installed example:\n%s", got)
	}

	t.Run("other directories", func(t *testing.T) {
		// install.sh honours PREFIX and every directory variable.
		dest := t.TempDir()
		cmd := exec.Command(filepath.Join(repoRoot(t), "packaging/install.sh"))
		cmd.Env = append(os.Environ(), "BIN="+bin, "DOCGEN="+bin+"-gendocs", "DESTDIR="+dest, "PREFIX=/opt/gs",
			"UNITDIR=/etc/systemd/system", "ZSHCOMPDIR=/opt/zsh")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("install.sh: %v\n%s", err, out)
		}
		for _, p := range []string{"opt/gs/bin/go-sentinel", "opt/gs/share/man/man1/go-sentinel.1", "etc/systemd/system/go-sentinel.service",
			"opt/zsh/_go-sentinel", "opt/gs/lib/sysusers.d/go-sentinel.conf"} {
			if _, err := os.Stat(filepath.Join(dest, p)); err != nil {
				t.Error(err)
			}
		}
		checkGoSentinelUnit(t, filepath.Join(dest, "etc/systemd/system/go-sentinel.service"), "/opt/gs/bin")
		checkDropIn(t, filepath.Join(dest, "opt/gs/share/go-sentinel/redis-sentinel.service.d/go-sentinel.conf"), "/opt/gs/bin")
	})

	t.Run("service user rewrites its config", func(t *testing.T) {
		testServiceUser(t, dest, inst)
	})
}

// testServiceUser applies the installed sysusers.d and tmpfiles.d entries
// to the DESTDIR tree (systemd-sysusers and systemd-tmpfiles --root), then
// runs the installed binary with the unit's command line as the created
// user: it must tell NOTIFY_SOCKET it is ready and rewrite the config it
// owns.
func testServiceUser(t *testing.T, dest, inst string) {
	needRoot(t, "the config is chowned to the service user and the daemon runs as it")
	for _, tool := range []string{"systemd-sysusers", "systemd-tmpfiles"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed", tool)
		}
	}
	if err := os.MkdirAll(filepath.Join(dest, "etc"), 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("systemd-sysusers", "--root="+dest).CombinedOutput(); err != nil {
		t.Fatalf("systemd-sysusers: %v\n%s", err, out)
	}
	uid, gid, home, shell := lookupUser(t, filepath.Join(dest, "etc/passwd"), "go-sentinel")
	if uid == 0 || home != "/var/lib/go-sentinel" || !strings.HasSuffix(shell, "nologin") {
		t.Errorf("go-sentinel user: uid %d home %s shell %s", uid, home, shell)
	}
	if out, err := exec.Command("systemd-tmpfiles", "--create", "--root="+dest, "go-sentinel.conf").CombinedOutput(); err != nil {
		t.Fatalf("systemd-tmpfiles: %v\n%s", err, out)
	}
	conf := filepath.Join(dest, "etc/go-sentinel/sentinel.conf")
	for path, mode := range map[string]fs.FileMode{
		filepath.Join(dest, "etc/go-sentinel"): fs.ModeDir | fs.ModeSetgid | 0o770,
		conf:                                   0o640,
		filepath.Join(dest, "var/lib/go-sentinel"): fs.ModeDir | 0o750,
	} {
		checkOwner(t, path, mode, uid, gid)
	}
	if readText(t, conf) != readText(t, filepath.Join(repoRoot(t), "configs/sentinel.conf.example")) {
		t.Errorf("%s is not the example", conf)
	}

	// The unit's RuntimeDirectory, where the example's pidfile goes.
	run := filepath.Join(dest, "run/go-sentinel")
	if err := os.MkdirAll(run, 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chown(run, int(uid), int(gid))
	openToAll(t, dest)
	notify := listenNotify(t)

	u := parseUnit(t, filepath.Join(dest, "usr/local/lib/systemd/system/go-sentinel.service"))
	argv := strings.Fields(u.values("Service", "ExecStart")[0])
	argv[0] = inst
	argv[1] = conf
	port := freePort(t)
	argv = append(argv, "--port", strconv.Itoa(port), "--pidfile", filepath.Join(run, "go-sentinel.pid"))
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), "NOTIFY_SOCKET="+notify.LocalAddr().String())
	cmd.Dir = "/"
	asUser(cmd, uid, gid)
	d := startDaemon(t, cmd, port)
	notify.SetReadDeadline(time.Now().Add(10 * time.Second))
	buf := make([]byte, 512)
	n, err := notify.Read(buf)
	if err != nil || !strings.Contains(string(buf[:n]), "READY=1") {
		t.Errorf("no READY=1 on NOTIFY_SOCKET: %v %q", err, buf[:n])
	}
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(readText(t, conf), "sentinel myid ") && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if code := d.stop(t, 0); code != 0 {
		t.Errorf("exit code %d after SIGTERM", code)
	}
	text := readText(t, conf)
	if !strings.Contains(text, "sentinel myid ") || !strings.Contains(text, "port "+strconv.Itoa(port)) {
		t.Errorf("the service user did not rewrite %s:\n%s", conf, text)
	}
	checkOwner(t, conf, 0o640, uid, gid)
}

// lookupUser reads name's uid, gid, home and shell from a passwd file.
func lookupUser(t *testing.T, passwd, name string) (uid, gid uint32, home, shell string) {
	t.Helper()
	f, err := os.Open(passwd)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Split(sc.Text(), ":")
		if len(fields) == 7 && fields[0] == name {
			u, _ := strconv.Atoi(fields[2])
			g, _ := strconv.Atoi(fields[3])
			return uint32(u), uint32(g), fields[5], fields[6]
		}
	}
	t.Fatalf("no user %s in %s", name, passwd)
	return 0, 0, "", ""
}

// checkOwner fails the test unless path has mode (type and permission
// bits) and belongs to uid:gid.
func checkOwner(t *testing.T, path string, mode fs.FileMode, uid, gid uint32) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Error(err)
		return
	}
	got := fi.Mode() & (fs.ModeType | fs.ModePerm | fs.ModeSetgid)
	st := fi.Sys().(*syscall.Stat_t)
	if got != mode || st.Uid != uid || st.Gid != gid {
		t.Errorf("%s: %v %d:%d, want %v %d:%d", path, got, st.Uid, st.Gid, mode, uid, gid)
	}
}

// listenNotify listens on a unix datagram socket every user may send to, as
// systemd's NOTIFY_SOCKET.
func listenNotify(t *testing.T) *net.UnixConn {
	t.Helper()
	dir := t.TempDir()
	openToAll(t, dir)
	path := filepath.Join(dir, "notify")
	c, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: path, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := os.Chmod(path, 0o777); err != nil {
		t.Fatal(err)
	}
	return c
}
