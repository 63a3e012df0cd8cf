package packaging

import (
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// debFiles is what the package holds besides its directories: mode of
// each file (all belong to root).
var debFiles = map[string]entry{
	"usr/bin/go-sentinel":                                             {mode: 0o755},
	"lib/systemd/system/go-sentinel.service":                          {mode: 0o644},
	"usr/share/go-sentinel/sentinel.conf.example":                     {mode: 0o644},
	"usr/share/go-sentinel/redis-sentinel.service.d/go-sentinel.conf": {mode: 0o644},
	"usr/share/man/man1/go-sentinel.1.gz":                             {mode: 0o644},
	"usr/share/man/man1/go-sentinel-check.1.gz":                       {mode: 0o644},
	"usr/share/man/man1/go-sentinel-explain.1.gz":                     {mode: 0o644},
	"usr/share/man/man1/go-sentinel-version.1.gz":                     {mode: 0o644},
	"usr/share/bash-completion/completions/go-sentinel":               {mode: 0o644},
	"usr/share/zsh/vendor-completions/_go-sentinel":                   {mode: 0o644},
	"usr/share/fish/vendor_completions.d/go-sentinel.fish":            {mode: 0o644},
	"usr/share/doc/go-sentinel/copyright":                             {mode: 0o644},
	"usr/share/doc/go-sentinel/README.Debian":                         {mode: 0o644},
}

var (
	debOnce sync.Once
	debPath string
	debOut  string
	debErr  error
)

// buildDeb runs `make deb` once for the whole test binary and returns the
// package's path.
func buildDeb(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("dpkg-deb"); err != nil {
		t.Skip("dpkg-deb not installed")
	}
	debOnce.Do(func() {
		dir, err := os.MkdirTemp("", "go-sentinel-deb-")
		if err != nil {
			debErr = err
			return
		}
		cleanups = append(cleanups, func() { os.RemoveAll(dir) })
		cmd := exec.Command("make", "--no-print-directory", "-C", repoRoot(t), "GO="+goTool(t), "deb")
		cmd.Env = append(os.Environ(), "OUT="+dir)
		out, err := cmd.CombinedOutput()
		debOut = string(out)
		if err != nil {
			debErr = fmt.Errorf("make deb: %w", err)
			return
		}
		lines := strings.Split(strings.TrimSpace(debOut), "\n")
		debPath = lines[len(lines)-1]
	})
	if debErr != nil {
		t.Fatalf("%v\n%s", debErr, debOut)
	}
	return debPath
}

// dpkgDeb runs dpkg-deb with args and returns its output.
func dpkgDeb(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command("dpkg-deb", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("dpkg-deb %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// TestMakeDeb builds the package and checks its control fields, its file
// list with modes and owners (dpkg-deb -c), and the extracted files: a
// static binary, gzipped man pages, completions, the unit with Debian's
// hardening and the drop-in, verified by systemd-analyze where it exists.
func TestMakeDeb(t *testing.T) {
	deb := buildDeb(t)
	arch, err := exec.Command("dpkg", "--print-architecture").Output()
	if err != nil {
		t.Skip("no dpkg")
	}
	fields := map[string]string{}
	for _, l := range strings.Split(dpkgDeb(t, "-f", deb), "\n") {
		if k, v, ok := strings.Cut(l, ": "); ok && !strings.HasPrefix(l, " ") {
			fields[k] = v
		}
	}
	for k, want := range map[string]string{"Package": "go-sentinel", "Architecture": strings.TrimSpace(string(arch)),
		"Depends": "adduser", "Section": "database", "Priority": "optional"} {
		if fields[k] != want {
			t.Errorf("control %s: %q, want %q", k, fields[k], want)
		}
	}
	if !strings.HasPrefix(fields["Version"], "0.1.0~dev+git") {
		t.Errorf("Version %q", fields["Version"])
	}
	// Nothing that would make dpkg remove, replace or deconfigure
	// redis-sentinel.
	for _, k := range []string{"Conflicts", "Replaces", "Breaks", "Provides", "Pre-Depends"} {
		if v, ok := fields[k]; ok {
			t.Errorf("control has %s: %s", k, v)
		}
	}

	got := map[string]entry{}
	for _, l := range strings.Split(strings.TrimSpace(dpkgDeb(t, "-c", deb)), "\n") {
		f := strings.Fields(l)
		if len(f) < 6 {
			t.Fatalf("dpkg-deb -c line %q", l)
		}
		if f[1] != "root/root" {
			t.Errorf("%s belongs to %s", f[5], f[1])
		}
		p := strings.TrimSuffix(strings.TrimPrefix(f[5], "./"), "/")
		if p == "" {
			continue
		}
		got[p] = entry{mode: parseLsMode(t, f[0])}
	}
	compareTrees(t, "dpkg-deb -c", withParents(withDocs(t, debFiles, "usr/share/doc/go-sentinel")), got)

	root := t.TempDir()
	dpkgDeb(t, "-x", deb, root)
	ctrl := t.TempDir()
	dpkgDeb(t, "-e", deb, ctrl)
	checkMd5sums(t, root, filepath.Join(ctrl, "md5sums"))
	bin := filepath.Join(root, "usr/bin/go-sentinel")
	checkStatic(t, bin)
	if out, err := exec.Command(bin, "version").Output(); err != nil || !strings.HasPrefix(string(out), "go-sentinel ") {
		t.Errorf("packaged go-sentinel version: %v %q", err, out)
	}
	checkManPages(t, filepath.Join(root, "usr/share/man/man1"), true)
	checkCompletions(t, bin, filepath.Join(root, "usr/share/bash-completion/completions/go-sentinel"),
		filepath.Join(root, "usr/share/zsh/vendor-completions/_go-sentinel"),
		filepath.Join(root, "usr/share/fish/vendor_completions.d/go-sentinel.fish"))
	unit := filepath.Join(root, "lib/systemd/system/go-sentinel.service")
	dropIn := filepath.Join(root, "usr/share/go-sentinel/redis-sentinel.service.d/go-sentinel.conf")
	checkGoSentinelUnit(t, unit, "/usr/bin")
	checkDropIn(t, dropIn, "/usr/bin")
	units := t.TempDir()
	stageUnit(t, unit, units, "go-sentinel.service", "/usr/bin/go-sentinel", bin)
	verifyUnits(t, units, "go-sentinel.service")
	if _, err := os.Stat(debianUnit); err == nil {
		units := t.TempDir()
		stageUnit(t, debianUnit, units, "redis-sentinel.service", "", "")
		stageUnit(t, dropIn, units, "redis-sentinel.service.d/go-sentinel.conf", "/usr/bin/go-sentinel", bin)
		verifyUnits(t, units, "redis-sentinel.service")
	}
	for _, s := range []string{"postinst", "prerm", "postrm"} {
		path := filepath.Join(ctrl, s)
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o755 {
			t.Errorf("maintainer script %s: %v", s, err)
			continue
		}
		if out, err := exec.Command("sh", "-n", path).CombinedOutput(); err != nil {
			t.Errorf("sh -n %s: %v\n%s", s, err, out)
		}
	}
	if _, err := os.Stat(filepath.Join(ctrl, "conffiles")); err == nil {
		t.Error("the package has conffiles; it ships nothing under /etc")
	}
}

// TestDebNeverOverlapsRedisPackages checks that no file of the package is
// a file of Debian's redis-sentinel, redis-server or redis-tools as
// installed here (dpkg -L): dpkg would refuse the package, or with
// --force-overwrite take the file from redis-sentinel.
func TestDebNeverOverlapsRedisPackages(t *testing.T) {
	deb := buildDeb(t)
	var ours []string
	for _, l := range strings.Split(strings.TrimSpace(dpkgDeb(t, "-c", deb)), "\n") {
		f := strings.Fields(l)
		if !strings.HasPrefix(f[0], "d") {
			ours = append(ours, strings.TrimPrefix(f[5], "."))
		}
	}
	checked := 0
	for _, pkg := range []string{"redis-sentinel", "redis-server", "redis-tools"} {
		out, err := exec.Command("dpkg-query", "-L", pkg).Output()
		if err != nil {
			t.Logf("%s not installed: not compared", pkg)
			continue
		}
		checked++
		theirs := map[string]bool{}
		for _, p := range strings.Split(string(out), "\n") {
			theirs[p] = true
			// /lib and /usr/lib are one directory on merged-/usr systems.
			theirs[strings.TrimPrefix(p, "/usr")] = true
		}
		for _, p := range ours {
			if theirs[p] || theirs[strings.TrimPrefix(p, "/usr")] {
				t.Errorf("%s is also a file of %s", p, pkg)
			}
		}
	}
	if checked == 0 {
		t.Skip("none of Debian's redis packages is installed; .ci/run installs them")
	}
}

// parseLsMode turns "-rwxr-xr-x" or "drwxr-xr-x" into a FileMode.
func parseLsMode(t *testing.T, s string) fs.FileMode {
	t.Helper()
	if len(s) != 10 {
		t.Fatalf("mode %q", s)
	}
	var m fs.FileMode
	switch s[0] {
	case 'd':
		m |= fs.ModeDir
	case 'l':
		m |= fs.ModeSymlink
	case '-':
	default:
		t.Fatalf("mode %q", s)
	}
	for i, c := range s[1:] {
		if c != '-' {
			m |= 1 << (8 - i)
		}
	}
	return m
}

// checkMd5sums checks DEBIAN/md5sums against the extracted files: every
// regular file is listed with its sum.
func checkMd5sums(t *testing.T, root, sums string) {
	t.Helper()
	listed := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(readText(t, sums)), "\n") {
		sum, p, ok := strings.Cut(l, "  ")
		if !ok {
			t.Fatalf("md5sums line %q", l)
		}
		listed[p] = sum
	}
	var files []string
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			rel, _ := filepath.Rel(root, path)
			files = append(files, rel)
		}
		return nil
	})
	for _, f := range files {
		b, _ := os.ReadFile(filepath.Join(root, f))
		sum := md5.Sum(b)
		if listed[f] != hex.EncodeToString(sum[:]) {
			t.Errorf("md5sums: %s listed as %q, is %x", f, listed[f], sum)
		}
	}
	if len(listed) != len(files) {
		t.Errorf("md5sums lists %d files, the package has %d", len(listed), len(files))
	}
}
