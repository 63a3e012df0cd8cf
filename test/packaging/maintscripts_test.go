package packaging

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The switch that points redis-sentinel.service at go-sentinel, and what
// it links to.
const (
	switchLink   = "etc/systemd/system/redis-sentinel.service.d/go-sentinel.conf"
	switchTarget = "/usr/share/go-sentinel/redis-sentinel.service.d/go-sentinel.conf"
)

// scriptSandbox runs the package's maintainer scripts with DPKG_ROOT set to
// a temporary root and the system tools they call (adduser, chown,
// dpkg-statoverride, systemctl, deb-systemd-*) replaced by stubs that only
// record their arguments.
type scriptSandbox struct {
	t     *testing.T
	root  string
	ctrl  string
	stubs string
	log   string
}

func newScriptSandbox(t *testing.T) *scriptSandbox {
	t.Helper()
	deb := buildDeb(t)
	s := &scriptSandbox{t: t, root: t.TempDir(), ctrl: t.TempDir(), stubs: t.TempDir()}
	s.log = filepath.Join(s.stubs, "calls.log")
	dpkgDeb(t, "-e", deb, s.ctrl)
	dpkgDeb(t, "-x", deb, s.root)
	for _, tool := range []string{"adduser", "chown", "systemctl", "deb-systemd-invoke", "deb-systemd-helper"} {
		s.stub(tool, 0)
	}
	// No statoverride: the scripts set owners and modes themselves.
	s.stub("dpkg-statoverride", 1)
	return s
}

// stub writes a tool that logs "tool args..." and exits with code.
func (s *scriptSandbox) stub(tool string, code int) {
	script := "#!/bin/sh\necho \"" + tool + " $*\" >> " + s.log + "\nexit " + string(rune('0'+code)) + "\n"
	if err := os.WriteFile(filepath.Join(s.stubs, tool), []byte(script), 0o755); err != nil {
		s.t.Fatal(err)
	}
}

// run runs a maintainer script with args and returns the stub calls it
// made.
func (s *scriptSandbox) run(script string, args ...string) []string {
	s.t.Helper()
	os.Remove(s.log)
	cmd := exec.Command(filepath.Join(s.ctrl, script), args...)
	cmd.Env = append(os.Environ(), "DPKG_ROOT="+s.root, "PATH="+s.stubs+":/usr/sbin:/usr/bin:/sbin:/bin")
	if out, err := cmd.CombinedOutput(); err != nil {
		s.t.Fatalf("%s %v: %v\n%s", script, args, err, out)
	}
	b, err := os.ReadFile(s.log)
	if err != nil {
		return nil
	}
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

func (s *scriptSandbox) path(rel string) string { return filepath.Join(s.root, rel) }

// TestDebMaintainerScripts runs postinst, prerm and postrm in a sandbox:
// the user and directories are created as Debian's redis packages do,
// the example becomes the config only when there is none, removal takes
// away the redis-sentinel.service switch only when it is ours, and purge
// removes the config. No service is touched (DPKG_ROOT is set).
func TestDebMaintainerScripts(t *testing.T) {
	s := newScriptSandbox(t)
	conf := s.path("etc/go-sentinel/sentinel.conf")
	example := readText(t, s.path("usr/share/go-sentinel/sentinel.conf.example"))

	calls := s.run("postinst", "configure", "")
	want := []string{
		"adduser --system --home /var/lib/go-sentinel --quiet --group go-sentinel",
		"chown go-sentinel:go-sentinel " + s.path("etc/go-sentinel"),
		"chown go-sentinel:go-sentinel " + s.path("var/lib/go-sentinel"),
		"chown go-sentinel:adm " + s.path("var/log/go-sentinel"),
		"chown go-sentinel:go-sentinel " + conf + ".dpkg-new",
	}
	for _, w := range want {
		if !containsLine(calls, w) {
			t.Errorf("postinst configure did not call %q; calls:\n%s", w, strings.Join(calls, "\n"))
		}
	}
	for _, c := range calls {
		if strings.HasPrefix(c, "systemctl") || strings.HasPrefix(c, "deb-systemd") {
			t.Errorf("postinst with DPKG_ROOT touched a service: %s", c)
		}
	}
	for rel, mode := range map[string]fs.FileMode{
		"etc/go-sentinel":               fs.ModeDir | fs.ModeSetgid | 0o770,
		"etc/go-sentinel/sentinel.conf": 0o640,
		"var/lib/go-sentinel":           fs.ModeDir | 0o750,
		"var/log/go-sentinel":           fs.ModeDir | fs.ModeSetgid | 0o750,
	} {
		fi, err := os.Stat(s.path(rel))
		if err != nil {
			t.Error(err)
			continue
		}
		if got := fi.Mode() & (fs.ModeType | fs.ModePerm | fs.ModeSetgid); got != mode {
			t.Errorf("%s: %v, want %v", rel, got, mode)
		}
	}
	if readText(t, conf) != example {
		t.Error("the new config is not the example")
	}
	if _, err := os.Stat(conf + ".dpkg-new"); err == nil {
		t.Error("sentinel.conf.dpkg-new left behind")
	}

	// An upgrade keeps the config the daemon and the admin wrote.
	edited := example + "sentinel myid 0123456789012345678901234567890123456789\n"
	os.WriteFile(conf, []byte(edited), 0o640)
	s.run("postinst", "configure", "0.1.0~dev")
	if readText(t, conf) != edited {
		t.Error("postinst configure on upgrade replaced the existing config")
	}
	if calls := s.run("prerm", "remove"); len(calls) > 0 {
		t.Errorf("prerm with DPKG_ROOT made calls: %v", calls)
	}

	// Removal: our switch goes, the admin's own drop-ins stay.
	link := s.path(switchLink)
	os.MkdirAll(filepath.Dir(link), 0o755)
	if err := os.Symlink(switchTarget, link); err != nil {
		t.Fatal(err)
	}
	own := filepath.Join(filepath.Dir(link), "limits.conf")
	os.WriteFile(own, []byte("[Service]\nLimitNOFILE=100000\n"), 0o644)
	s.run("postrm", "remove")
	if _, err := os.Lstat(link); err == nil {
		t.Error("postrm remove left the switch to go-sentinel in redis-sentinel.service.d")
	}
	if _, err := os.Stat(own); err != nil {
		t.Errorf("postrm remove took the admin's drop-in: %v", err)
	}
	// A switch that is a copy or points elsewhere is the admin's.
	if err := os.Symlink("/etc/somewhere/else.conf", link); err != nil {
		t.Fatal(err)
	}
	s.run("postrm", "remove")
	if _, err := os.Lstat(link); err != nil {
		t.Error("postrm remove took a drop-in that does not point at the package's")
	}
	os.Remove(link)
	os.Remove(own)
	os.Symlink(switchTarget, link)
	s.run("postrm", "remove")
	if _, err := os.Stat(filepath.Dir(link)); err == nil {
		t.Error("postrm remove left an empty redis-sentinel.service.d")
	}
	if readText(t, conf) != edited {
		t.Error("postrm remove touched the config")
	}

	// Purge removes the config and what the daemon left next to it.
	os.WriteFile(conf+".8812345", []byte("partial"), 0o640)
	s.run("postrm", "purge")
	if _, err := os.Stat(s.path("etc/go-sentinel")); err == nil {
		t.Errorf("postrm purge left etc/go-sentinel: %v", tree(t, s.path("etc/go-sentinel")))
	}
}

func containsLine(lines []string, want string) bool {
	for _, l := range lines {
		if l == want {
			return true
		}
	}
	return false
}
