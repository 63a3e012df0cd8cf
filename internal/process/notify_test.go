package process

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// listenNotify opens a unixgram listener at name and points NOTIFY_SOCKET at it.
func listenNotify(t *testing.T, name string) *net.UnixConn {
	t.Helper()
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: name, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	t.Setenv(EnvNotifySocket, name)
	return conn
}

func readDatagram(t *testing.T, conn *net.UnixConn) string {
	t.Helper()
	if err := conn.SetReadDeadline(time.Now().Add(10 * time.Second)); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4096)
	n, _, err := conn.ReadFromUnix(buf)
	if err != nil {
		t.Fatal(err)
	}
	return string(buf[:n])
}

func TestNotify(t *testing.T) {
	tests := []struct {
		name string
		send func() error
		want string
	}{
		{"ready", func() error { return NotifyReady("") }, "READY=1\n"},
		{"ready with status", func() error { return NotifyReady("Ready to accept connections") },
			"STATUS=Ready to accept connections\nREADY=1\n"},
		{"stopping", NotifyStopping, "STOPPING=1\n"},
		{"raw", func() error { return Notify("STATUS=Redis is loading...\n") }, "STATUS=Redis is loading...\n"},
	}
	addrs := map[string]func(t *testing.T) string{
		"path": func(t *testing.T) string { return filepath.Join(t.TempDir(), "notify.sock") },
		"abstract": func(t *testing.T) string {
			return "@go-sentinel-test-" + strconv.Itoa(os.Getpid()) + "-" + t.Name()
		},
	}
	for kind, addr := range addrs {
		for _, tt := range tests {
			t.Run(kind+"/"+tt.name, func(t *testing.T) {
				conn := listenNotify(t, addr(t))
				if err := tt.send(); err != nil {
					t.Fatal(err)
				}
				if got := readDatagram(t, conn); got != tt.want {
					t.Errorf("datagram = %q, want %q", got, tt.want)
				}
			})
		}
	}
}

func TestNotifyUnset(t *testing.T) {
	t.Setenv(EnvNotifySocket, "")
	if err := NotifyReady("x"); err != nil {
		t.Fatalf("unset NOTIFY_SOCKET: %v", err)
	}
	if err := NotifyStopping(); err != nil {
		t.Fatalf("unset NOTIFY_SOCKET: %v", err)
	}
}

func TestNotifyErrors(t *testing.T) {
	t.Setenv(EnvNotifySocket, "relative/notify.sock")
	if err := NotifyReady(""); !errors.Is(err, ErrBadNotifySocket) {
		t.Errorf("relative path: err = %v, want ErrBadNotifySocket", err)
	}
	t.Setenv(EnvNotifySocket, filepath.Join(t.TempDir(), "absent.sock"))
	if err := NotifyReady(""); err == nil {
		t.Error("missing socket: no error")
	}
}
