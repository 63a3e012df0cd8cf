package packaging

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// debianUnit is where Debian's redis-sentinel package puts its unit.
const debianUnit = "/lib/systemd/system/redis-sentinel.service"

// hardening is the hardening of Debian bookworm's redis-sentinel.service
// (redis 5:7.0.15-1~deb12u*), which go-sentinel.service repeats value for
// value. Every assignment counts, in order, for the settings that take
// several.
var hardening = map[string][]string{
	"Type":                    {"notify"},
	"TimeoutStopSec":          {"0"},
	"Restart":                 {"always"},
	"RuntimeDirectoryMode":    {"2755"},
	"UMask":                   {"007"},
	"PrivateTmp":              {"true"},
	"LimitNOFILE":             {"65535"},
	"PrivateDevices":          {"true"},
	"ProtectHome":             {"true"},
	"ProtectSystem":           {"strict"},
	"CapabilityBoundingSet":   {""},
	"LockPersonality":         {"true"},
	"MemoryDenyWriteExecute":  {"true"},
	"NoNewPrivileges":         {"true"},
	"PrivateUsers":            {"true"},
	"ProtectClock":            {"true"},
	"ProtectControlGroups":    {"true"},
	"ProtectHostname":         {"true"},
	"ProtectKernelLogs":       {"true"},
	"ProtectKernelModules":    {"true"},
	"ProtectKernelTunables":   {"true"},
	"ProtectProc":             {"invisible"},
	"RemoveIPC":               {"true"},
	"RestrictAddressFamilies": {"AF_INET AF_INET6 AF_UNIX"},
	"RestrictNamespaces":      {"true"},
	"RestrictRealtime":        {"true"},
	"RestrictSUIDSGID":        {"true"},
	"SystemCallArchitectures": {"native"},
	"SystemCallFilter":        {"@system-service", "~ @privileged @resources"},
	"NoExecPaths":             {"/"},
}

// adapted are the [Service] settings of Debian's unit that name
// redis-sentinel's own binary, files, user or directories; go-sentinel.service
// has its own values for them.
var adapted = []string{"ExecStart", "PIDFile", "User", "Group", "RuntimeDirectory",
	"ReadWritePaths", "ReadWriteDirectories", "ExecPaths"}

// unitFile is a parsed systemd unit or drop-in: the assignments of each
// section in file order.
type unitFile map[string][][2]string

// parseUnit reads a unit file. Comments and blank lines are skipped; lines
// continued with a backslash are joined.
func parseUnit(t *testing.T, path string) unitFile {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	u := unitFile{}
	section := ""
	sc := bufio.NewScanner(f)
	pending := ""
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if pending != "" {
			line = pending + " " + line
			pending = ""
		}
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if strings.HasSuffix(line, "\\") {
			pending = strings.TrimSuffix(line, "\\")
			continue
		}
		if line[0] == '[' {
			section = strings.Trim(line, "[]")
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			t.Fatalf("%s: not an assignment: %q", path, line)
		}
		u[section] = append(u[section], [2]string{strings.TrimSpace(k), strings.TrimSpace(v)})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return u
}

// values returns every value assigned to key in section, in order.
func (u unitFile) values(section, key string) []string {
	var vs []string
	for _, kv := range u[section] {
		if kv[0] == key {
			vs = append(vs, kv[1])
		}
	}
	return vs
}

// effective applies drop-ins over u the way systemd does for list
// settings: later assignments append, an empty one resets the list.
func effective(key string, files ...unitFile) []string {
	var vs []string
	for _, u := range files {
		for _, v := range u.values("Service", key) {
			if v == "" {
				vs = nil
				continue
			}
			vs = append(vs, v)
		}
	}
	return vs
}

// checkHardening fails the test unless unit carries Debian's hardening
// value for value.
func checkHardening(t *testing.T, unit unitFile) {
	t.Helper()
	for key, want := range hardening {
		if got := unit.values("Service", key); !reflect.DeepEqual(got, want) {
			t.Errorf("%s=%q, Debian's redis-sentinel.service has %q", key, got, want)
		}
	}
}

// TestHardeningListMatchesDebianUnit checks the hardening table above
// against the redis-sentinel.service installed on this machine: every
// setting of its [Service] section is either in the table with the same
// values or one of the adapted ones, so a new hardening line in Debian's
// unit fails here until go-sentinel.service has it too.
func TestHardeningListMatchesDebianUnit(t *testing.T) {
	if _, err := os.Stat(debianUnit); err != nil {
		t.Skipf("%s not installed (apt-get install redis-sentinel); .ci/run installs it", debianUnit)
	}
	deb := parseUnit(t, debianUnit)
	seen := map[string]bool{}
	for _, kv := range deb["Service"] {
		key := kv[0]
		if seen[key] || slices.Contains(adapted, key) {
			continue
		}
		seen[key] = true
		want, ok := hardening[key]
		if !ok {
			t.Errorf("Debian's unit sets %s=%q, which go-sentinel.service does not repeat", key, deb.values("Service", key))
			continue
		}
		if got := deb.values("Service", key); !reflect.DeepEqual(got, want) {
			t.Errorf("Debian's unit has %s=%q, the table %q", key, got, want)
		}
	}
	for key := range hardening {
		if !seen[key] {
			t.Errorf("the table has %s, Debian's unit does not", key)
		}
	}
}

// verifyUnits runs `systemd-analyze verify` on units (names, looked up in
// dir before the system's unit path) and fails the test on any complaint.
// It is skipped where systemd-analyze is missing.
func verifyUnits(t *testing.T, dir string, units ...string) {
	t.Helper()
	sa, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Logf("systemd-analyze not installed: units not verified")
		return
	}
	cmd := exec.Command(sa, append([]string{"verify", "--man=no"}, units...)...)
	// The trailing colon appends the default search path (targets, ...).
	cmd.Env = append(os.Environ(), "SYSTEMD_UNIT_PATH="+dir+":", "SYSTEMD_LOG_COLOR=0")
	out, err := cmd.CombinedOutput()
	if err != nil || len(strings.TrimSpace(string(out))) > 0 {
		t.Errorf("systemd-analyze verify %v: %v\n%s", units, err, out)
	}
}

// stageUnit copies a unit or drop-in into dir/name with every occurrence
// of from (when not "") replaced by to: systemd-analyze verify wants
// ExecStart's binary to exist where the unit names it.
func stageUnit(t *testing.T, src, dir, name, from, to string) {
	t.Helper()
	text := readText(t, src)
	if from != "" {
		text = strings.ReplaceAll(text, from, to)
	}
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// checkGoSentinelUnit checks the installed go-sentinel.service: the
// command line, the user, the writable config directory, the one
// executable binary, and Debian's hardening.
func checkGoSentinelUnit(t *testing.T, path, bindir string) {
	t.Helper()
	u := parseUnit(t, path)
	wantExec := bindir + "/go-sentinel /etc/go-sentinel/sentinel.conf --supervised systemd --daemonize no"
	if got := u.values("Service", "ExecStart"); !reflect.DeepEqual(got, []string{wantExec}) {
		t.Errorf("ExecStart=%q, want %q", got, wantExec)
	}
	for _, key := range []string{"User", "Group"} {
		if got := u.values("Service", key); !reflect.DeepEqual(got, []string{"go-sentinel"}) {
			t.Errorf("%s=%q, want go-sentinel", key, got)
		}
	}
	if got := u.values("Service", "RuntimeDirectory"); !reflect.DeepEqual(got, []string{"go-sentinel"}) {
		t.Errorf("RuntimeDirectory=%q, want go-sentinel (the example's pidfile is in /run/go-sentinel)", got)
	}
	if rw := u.values("Service", "ReadWritePaths"); !slices.Contains(rw, "-/etc/go-sentinel") {
		t.Errorf("ReadWritePaths=%q lacks -/etc/go-sentinel: the config could not be rewritten under ProtectSystem=strict", rw)
	}
	if got, want := u.values("Service", "ExecPaths"), []string{bindir + "/go-sentinel /usr/lib /lib"}; !reflect.DeepEqual(got, want) {
		t.Errorf("ExecPaths=%q, want %q", got, want)
	}
	if got := u.values("Install", "WantedBy"); !reflect.DeepEqual(got, []string{"multi-user.target"}) {
		t.Errorf("WantedBy=%q", got)
	}
	checkHardening(t, u)
}

// checkDropIn checks the drop-in that points redis-sentinel.service at
// go-sentinel, applied over Debian's unit when it is installed: the
// effective command is go-sentinel with Debian's config and flags, the
// binary may be executed, and the config directory stays writable.
func checkDropIn(t *testing.T, path, bindir string) {
	t.Helper()
	drop := parseUnit(t, path)
	want := []string{bindir + "/go-sentinel /etc/redis/sentinel.conf --supervised systemd --daemonize no"}
	if got := effective("ExecStart", drop); !reflect.DeepEqual(got, want) {
		t.Errorf("drop-in ExecStart=%q, want %q", got, want)
	}
	if got := drop.values("Service", "ExecStart"); len(got) == 0 || got[0] != "" {
		t.Errorf("drop-in does not reset ExecStart first: %q", got)
	}
	if _, err := os.Stat(debianUnit); err != nil {
		return
	}
	deb := parseUnit(t, debianUnit)
	if got := effective("ExecStart", deb, drop); !reflect.DeepEqual(got, want) {
		t.Errorf("redis-sentinel.service with the drop-in runs %q, want %q", got, want)
	}
	execPaths := strings.Fields(strings.Join(effective("ExecPaths", deb, drop), " "))
	if !slices.Contains(execPaths, bindir+"/go-sentinel") {
		t.Errorf("redis-sentinel.service with the drop-in may execute only %q", execPaths)
	}
	rw := append(effective("ReadWritePaths", deb, drop), effective("ReadWriteDirectories", deb, drop)...)
	if !slices.Contains(rw, "-/etc/redis") {
		t.Errorf("redis-sentinel.service with the drop-in cannot rewrite /etc/redis/sentinel.conf: writable %q", rw)
	}
}
