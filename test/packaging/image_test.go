package packaging

import (
	"archive/tar"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// containerfileInstr returns the instructions of a Containerfile, joined
// across continuation lines, comments left out: keyword and arguments.
func containerfileInstr(t *testing.T, path string) [][2]string {
	t.Helper()
	var out [][2]string
	pending := ""
	for _, l := range strings.Split(readText(t, path), "\n") {
		l = strings.TrimSpace(l)
		if pending == "" && (l == "" || strings.HasPrefix(l, "#")) {
			continue
		}
		if strings.HasSuffix(l, "\\") {
			pending += strings.TrimSuffix(l, "\\") + " "
			continue
		}
		l = pending + l
		pending = ""
		kw, args, _ := strings.Cut(l, " ")
		out = append(out, [2]string{strings.ToUpper(kw), strings.TrimSpace(args)})
	}
	return out
}

// TestContainerfile checks what the image promises from the Containerfile
// alone: an empty base, a non-root numeric user, the config directory a
// volume, port 26379, go-sentinel as the entrypoint with a config in that
// volume.
func TestContainerfile(t *testing.T) {
	got := map[string][]string{}
	for _, in := range containerfileInstr(t, filepath.Join(repoRoot(t), "Containerfile")) {
		got[in[0]] = append(got[in[0]], in[1])
	}
	want := map[string][]string{
		"FROM":       {"scratch"},
		"USER":       {"65532:65532"},
		"VOLUME":     {`["/etc/go-sentinel"]`},
		"EXPOSE":     {"26379"},
		"ENTRYPOINT": {`["/usr/bin/go-sentinel"]`},
		"CMD":        {`["/etc/go-sentinel/sentinel.conf"]`},
	}
	for k, w := range want {
		if !reflect.DeepEqual(got[k], w) {
			t.Errorf("%s %q, want %q", k, got[k], w)
		}
	}
	for _, c := range got["COPY"] {
		if !strings.HasPrefix(c, "--chown=") {
			t.Errorf("COPY %s: no --chown, the owner would depend on the build machine", c)
		}
	}
	if got["RUN"] != nil {
		t.Errorf("RUN in an image FROM scratch: %q", got["RUN"])
	}
}

// imageConfig is the part of `podman image inspect` the test reads.
type imageConfig struct {
	Config struct {
		User         string
		ExposedPorts map[string]struct{}
		Volumes      map[string]struct{}
		Entrypoint   []string
		Cmd          []string
	}
}

// TestMakeImage builds the image with `make image` (podman), checks its
// configuration and its exported root filesystem, and runs its entrypoint
// and command from that filesystem (chrooted, as the image's user), since
// containers may not run on the test machine: the daemon must answer on
// its port and rewrite the config in the volume directory.
func TestMakeImage(t *testing.T) {
	podman, err := exec.LookPath("podman")
	if err != nil {
		t.Skip("podman not installed (apt-get install podman): TestContainerfile checks the Containerfile only")
	}
	image := fmt.Sprintf("localhost/go-sentinel-test:%d", os.Getpid())
	t.Cleanup(func() { exec.Command(podman, "rmi", "--force", image).Run() })
	runMake(t, []string{"IMAGE=" + image}, "image", "IMAGE="+image)

	out, err := exec.Command(podman, "image", "inspect", image).Output()
	if err != nil {
		t.Fatalf("podman image inspect: %v", err)
	}
	var inspect []imageConfig
	if err := json.Unmarshal(out, &inspect); err != nil || len(inspect) != 1 {
		t.Fatalf("podman image inspect: %v\n%s", err, out)
	}
	cfg := inspect[0].Config
	if cfg.User != "65532:65532" {
		t.Errorf("User %q", cfg.User)
	}
	if _, ok := cfg.ExposedPorts["26379/tcp"]; !ok || len(cfg.ExposedPorts) != 1 {
		t.Errorf("ExposedPorts %v", cfg.ExposedPorts)
	}
	if _, ok := cfg.Volumes["/etc/go-sentinel"]; !ok || len(cfg.Volumes) != 1 {
		t.Errorf("Volumes %v", cfg.Volumes)
	}

	// The root filesystem, through a created (never started) container.
	cid, err := exec.Command(podman, "create", image).Output()
	if err != nil {
		t.Fatalf("podman create: %v", err)
	}
	id := strings.TrimSpace(string(cid))
	t.Cleanup(func() { exec.Command(podman, "rm", "--force", id).Run() })
	rootfs := t.TempDir()
	tarball := filepath.Join(t.TempDir(), "rootfs.tar")
	if out, err := exec.Command(podman, "export", "-o", tarball, id).CombinedOutput(); err != nil {
		t.Fatalf("podman export: %v\n%s", err, out)
	}
	type owned struct {
		mode     fs.FileMode
		uid, gid int
	}
	wantFS := map[string]owned{
		"etc":                           {fs.ModeDir | 0o755, 0, 0},
		"etc/go-sentinel":               {fs.ModeDir | 0o755, 65532, 65532},
		"etc/go-sentinel/sentinel.conf": {0o640, 65532, 65532},
		"run":                           {fs.ModeDir | 0o755, 0, 0},
		"run/go-sentinel":               {fs.ModeDir | 0o755, 65532, 65532},
		"tmp":                           {fs.ModeDir | fs.ModeSticky | 0o777, 0, 0},
		"usr":                           {fs.ModeDir | 0o755, 0, 0},
		"usr/bin":                       {fs.ModeDir | 0o755, 0, 0},
		"usr/bin/go-sentinel":           {0o755, 0, 0},
	}
	gotFS := map[string]owned{}
	f, err := os.Open(tarball)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr := tar.NewReader(f)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimSuffix(strings.TrimPrefix(h.Name, "./"), "/")
		fi := h.FileInfo()
		gotFS[name] = owned{fi.Mode() & (fs.ModeType | fs.ModePerm | fs.ModeSticky), h.Uid, h.Gid}
	}
	if !reflect.DeepEqual(gotFS, wantFS) {
		t.Errorf("image root filesystem:\n got %v\nwant %v", gotFS, wantFS)
	}
	if out, err := exec.Command("tar", "-xf", tarball, "--numeric-owner", "-C", rootfs).CombinedOutput(); err != nil {
		t.Fatalf("tar -x: %v\n%s", err, out)
	}
	checkStatic(t, filepath.Join(rootfs, "usr/bin/go-sentinel"))
	if readText(t, filepath.Join(rootfs, "etc/go-sentinel/sentinel.conf")) != readText(t, filepath.Join(repoRoot(t), "configs/sentinel.conf.example")) {
		t.Error("the image's sentinel.conf is not the example")
	}

	needRoot(t, "the entrypoint runs chrooted into the exported filesystem as the image's user")
	openToAll(t, rootfs)
	port := freePort(t)
	argv := append(append(append([]string{}, cfg.Entrypoint...), cfg.Cmd...), "--port", strconv.Itoa(port))
	cmd := exec.Command(argv[0], argv[1:]...)
	uid, gid := 65532, 65532
	fmt.Sscanf(cfg.User, "%d:%d", &uid, &gid)
	cmd.SysProcAttr = &syscall.SysProcAttr{Chroot: rootfs}
	asUser(cmd, uint32(uid), uint32(gid))
	cmd.Dir = "/"
	cmd.Env = []string{"PATH=/usr/bin"}
	d := startDaemon(t, cmd, port)
	conf := filepath.Join(rootfs, "etc/go-sentinel/sentinel.conf")
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(readText(t, conf), "sentinel myid ") && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if code := d.stop(t, 0); code != 0 {
		t.Errorf("exit code %d after SIGTERM", code)
	}
	if !strings.Contains(readText(t, conf), "sentinel myid ") {
		t.Errorf("the entrypoint did not rewrite /etc/go-sentinel/sentinel.conf:\n%s", d.out.String())
	}
	if out := d.out.String(); strings.Contains(out, "Failed to write PID file") {
		t.Errorf("the example's pidfile cannot be written in the image:\n%s", out)
	}
}
