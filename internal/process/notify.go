package process

import (
	"fmt"
	"net"
	"os"
)

// EnvNotifySocket is the variable systemd passes the notification socket in.
const EnvNotifySocket = "NOTIFY_SOCKET"

// Notify sends state (newline-separated KEY=VALUE assignments, such as
// "STATUS=Redis is loading...\n") as one datagram to the unix datagram socket
// named by $NOTIFY_SOCKET, like sd_notify(3). A name starting with '@' is an
// abstract socket. It does nothing and returns nil when the variable is
// unset or empty.
func Notify(state string) error {
	addr := os.Getenv(EnvNotifySocket)
	if addr == "" {
		return nil
	}
	if addr[0] != '/' && addr[0] != '@' {
		return fmt.Errorf("process: notify %q: %w", addr, ErrBadNotifySocket)
	}
	// net maps a leading '@' onto Linux's abstract namespace.
	conn, err := net.DialUnix("unixgram", nil, &net.UnixAddr{Name: addr, Net: "unixgram"})
	if err != nil {
		return fmt.Errorf("process: notify: %w", err)
	}
	defer conn.Close()
	if _, err := conn.Write([]byte(state)); err != nil {
		return fmt.Errorf("process: notify: %w", err)
	}
	return nil
}

// NotifyReady tells systemd start-up is complete: it sends
// "STATUS=<status>\nREADY=1\n", or just "READY=1\n" when status is "".
// Redis sends "Ready to accept connections" as the status.
func NotifyReady(status string) error {
	if status == "" {
		return Notify("READY=1\n")
	}
	return Notify("STATUS=" + status + "\nREADY=1\n")
}

// NotifyStopping tells systemd the service is shutting down ("STOPPING=1\n").
func NotifyStopping() error { return Notify("STOPPING=1\n") }
