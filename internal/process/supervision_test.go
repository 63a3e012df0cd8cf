package process

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
	"testing"
)

func TestSupervisionMode(t *testing.T) {
	tests := []struct {
		directive, upstart, notify string
		want                       string
	}{
		{"no", "", "", SupervisedNo},
		{"no", "job", "/run/notify", SupervisedNo},
		{"upstart", "", "", SupervisedUpstart},
		{"systemd", "", "", SupervisedSystemd},
		{"SystemD", "", "", SupervisedSystemd},
		{"auto", "", "", SupervisedNo},
		{"auto", "", "/run/systemd/notify", SupervisedSystemd},
		{"auto", "redis", "", SupervisedUpstart},
		{"auto", "redis", "/run/systemd/notify", SupervisedUpstart}, // Redis checks upstart first
		{"AUTO", "", "@notify", SupervisedSystemd},
		{"", "", "/run/notify", SupervisedNo},
		{"yes", "job", "/run/notify", SupervisedNo},
	}
	for _, tt := range tests {
		env := func(k string) string {
			switch k {
			case EnvUpstartJob:
				return tt.upstart
			case EnvNotifySocket:
				return tt.notify
			}
			return ""
		}
		if got := SupervisionMode(tt.directive, env); got != tt.want {
			t.Errorf("SupervisionMode(%q, UPSTART_JOB=%q NOTIFY_SOCKET=%q) = %q, want %q",
				tt.directive, tt.upstart, tt.notify, got, tt.want)
		}
	}
}

func TestUpstartReady(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), envHelper+"=upstart", EnvUpstartJob+"=redis-sentinel")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = syscall.Kill(cmd.Process.Pid, syscall.SIGCONT)
			_ = cmd.Wait()
		}
	})
	var ws syscall.WaitStatus
	if _, err := syscall.Wait4(cmd.Process.Pid, &ws, syscall.WUNTRACED, nil); err != nil {
		t.Fatal(err)
	}
	if !ws.Stopped() || ws.StopSignal() != syscall.SIGSTOP {
		t.Fatalf("child did not stop with SIGSTOP: status %#x", ws)
	}
	if err := syscall.Kill(cmd.Process.Pid, syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		t.Fatalf("helper exited %d", ee.ExitCode())
	}
	if err != nil {
		t.Fatal(err)
	}
}
