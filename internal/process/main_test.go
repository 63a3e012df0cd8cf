package process

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"syscall"
	"testing"
)

// Helper-process modes: the test binary re-executes itself with
// envHelper set, and TestMain runs the helper instead of the tests.
const (
	envHelper = "GO_SENTINEL_PROCESS_HELPER"
	envReport = "GO_SENTINEL_PROCESS_REPORT"
)

func TestMain(m *testing.M) {
	switch os.Getenv(envHelper) {
	case "":
		os.Exit(m.Run())
	case "daemon":
		os.Exit(daemonHelper())
	case "upstart":
		os.Exit(upstartHelper())
	default:
		os.Exit(2)
	}
}

// daemonReport is what the daemon child observes about itself.
type daemonReport struct {
	IsChild     bool
	IsParent    bool
	DaemonErr   string
	MarkerLeft  bool
	Pid, Sid    int
	Stdio       [3]string
	Args        []string
	Cwd         string
	HelperValue string
}

// daemonHelper runs in the re-executed child: it reports over the unix
// socket named by envReport and exits.
func daemonHelper() int {
	var r daemonReport
	r.IsChild = IsDaemonChild()
	isParent, err := Daemonize(nil)
	r.IsParent = isParent
	if err != nil {
		r.DaemonErr = err.Error()
	}
	_, r.MarkerLeft = os.LookupEnv(EnvDaemonChild)
	r.Pid = os.Getpid()
	sid, _, errno := syscall.RawSyscall(syscall.SYS_GETSID, 0, 0, 0)
	if errno != 0 {
		r.Sid = -1
	} else {
		r.Sid = int(sid)
	}
	for fd := range 3 {
		r.Stdio[fd], _ = os.Readlink(fmt.Sprintf("/proc/self/fd/%d", fd))
	}
	r.Args = os.Args
	r.Cwd, _ = os.Getwd()
	r.HelperValue = os.Getenv(envHelper)
	conn, err := net.Dial("unix", os.Getenv(envReport))
	if err != nil {
		return 3
	}
	defer conn.Close()
	if err := json.NewEncoder(conn).Encode(r); err != nil {
		return 4
	}
	return 0
}

// upstartHelper stops itself via UpstartReady and, once continued, exits 0
// if UPSTART_JOB was removed.
func upstartHelper() int {
	if os.Getenv(EnvUpstartJob) == "" {
		return 5
	}
	if err := UpstartReady(); err != nil {
		return 6
	}
	if _, ok := os.LookupEnv(EnvUpstartJob); ok {
		return 7
	}
	return 0
}
