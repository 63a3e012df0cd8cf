package integration

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestHistoriesCheckerFires shows that the histories' checks catch what
// they exist for: go-sentinel built with deliberate faults (-tags
// histfaults, internal/*/fault_histfaults.go; never shipped) runs one
// episode of the fault each is about, and the check of that claim must
// fail with porcupine's visualization of the offending key written:
//
//   - nofence (the proxy never fences), the master's host cut off: the
//     proxy on the cut-off host keeps forwarding to the old master, so
//     the proxy route is not linearizable outside the fence window;
//   - readlag (the read port ignores max-lag), a replica's replication
//     cut: reads staler than max-lag;
//   - latejoin (a returning old master converted only after Redis's
//     wait), the master killed and restarted on its old config: writes
//     it acknowledged long after it came back, then lost.
//
// make histories runs it (GS_HISTORIES_FIRES=1; GS_HISTFAULTS_BIN names
// the test build, else it is built here).
func TestHistoriesCheckerFires(t *testing.T) {
	if os.Getenv("GS_HISTORIES_FIRES") == "" {
		t.Skip("make histories runs it (GS_HISTORIES_FIRES=1, as root)")
	}
	bin := os.Getenv("GS_HISTFAULTS_BIN")
	if bin == "" {
		bin = filepath.Join(t.TempDir(), "go-sentinel-histfaults")
		if out, err := exec.Command("go", "build", "-tags", "histfaults", "-o", bin, "../../cmd/go-sentinel").CombinedOutput(); err != nil {
			t.Fatalf("building the histfaults test build: %v\n%s", err, out)
		}
	}
	dir := os.Getenv("HIST_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "go-sentinel-histories")
	}
	for _, tc := range []struct {
		fault string
		ep    histFault
		claim string
	}{
		{"nofence", histCutMaster, claimProxy},
		{"readlag", histLagReplica, claimStale},
		{"latejoin", histKillMaster, claimReturn},
	} {
		t.Run(tc.fault, func(t *testing.T) {
			d := filepath.Join(dir, "fires-"+tc.fault)
			os.RemoveAll(d)
			os.MkdirAll(d, 0o755)
			j := runHistories(t, time.Second, time.Now().UnixNano(), d, bin, []string{"GS_HISTFAULT=" + tc.fault}, []histFault{tc.ep}, false)
			var fired []string
			for _, f := range j.failures {
				if strings.HasPrefix(f, tc.claim+":") {
					fired = append(fired, f)
				}
			}
			if len(fired) == 0 {
				t.Fatalf("GS_HISTFAULT=%s under %s: the check %q did not fire (failures: %q)", tc.fault, tc.ep, tc.claim, j.failures)
			}
			var shown []string
			for _, v := range j.visuals {
				if st, err := os.Stat(v); err == nil && st.Size() > 0 {
					shown = append(shown, v)
				}
			}
			if len(shown) == 0 {
				t.Fatalf("GS_HISTFAULT=%s: the check fired (%s) but wrote no visualization", tc.fault, fired[0])
			}
			t.Logf("GS_HISTFAULT=%s under %s: fired: %s; visualization %s", tc.fault, tc.ep, fired[0], shown[0])
		})
	}
}
