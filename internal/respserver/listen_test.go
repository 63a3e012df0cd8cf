package respserver

import (
	"bufio"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestUnixSocketAndIdleTimeout(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "sentinel.sock")
	srv := New(Options{Unixsocket: sock, Unixsocketperm: 0o700, IdleTimeout: time.Second,
		Info: ServerInfo{Version: "7.0.15"}})
	if err := srv.Listen(); err != nil {
		t.Fatal(err)
	}
	srv.Serve()
	t.Cleanup(func() { srv.Close() })
	st, err := os.Stat(sock)
	if err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("socket: %v %v", st, err)
	}
	nc, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(10 * time.Second))
	rd := bufio.NewReader(nc)
	nc.Write([]byte("PING\r\n"))
	if line, _ := rd.ReadString('\n'); line != "+PONG\r\n" {
		t.Fatalf("PING over the unix socket: %q", line)
	}
	// Idle for longer than the timeout: the server closes the connection.
	if _, err := rd.ReadByte(); err == nil {
		t.Fatal("idle client not closed")
	}
	srv.Close()
	if _, err := os.Stat(sock); !os.IsNotExist(err) {
		t.Fatal("socket file left behind")
	}
}
