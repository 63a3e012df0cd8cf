package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"

	"github.com/go-sentinel/go-sentinel/internal/config"
	"github.com/go-sentinel/go-sentinel/internal/logging"
	"github.com/go-sentinel/go-sentinel/internal/node"
)

// startSentinelNode runs a go-sentinel in-process on a free loopback port
// with extra config lines, watching "m" at an address nobody answers, and
// returns the port.
func startSentinelNode(t *testing.T, extra string) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	dead, err := net.Listen("tcp", "127.0.0.1:0") // accepts, never answers
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dead.Close() })
	ln.Close()
	path := writeTemp(t, fmt.Sprintf("port %d\nbind 127.0.0.1\nsentinel monitor m 127.0.0.1 %d 2\n%s", port, dead.Addr().(*net.TCPAddr).Port, extra))
	cfg, err := config.Load(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	log, err := logging.New(logging.Options{Writer: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	n, err := node.Start(cfg, node.Options{Log: log})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(n.Stop)
	return port
}

func TestExplainCommand(t *testing.T) {
	port := strconv.Itoa(startSentinelNode(t, "requirepass secret\n"))
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stdout string // a fragment
		stderr string // a fragment
	}{
		{"text", []string{"explain", "m", "-p", port, "-a", "secret"}, 0, "master m 127.0.0.1 ", ""},
		{"long flags", []string{"explain", "m", "--host", "127.0.0.1", "--port", port, "--pass", "secret"}, 0, "\n  why: ", ""},
		{"json", []string{"explain", "--json", "m", "-h", "127.0.0.1", "-p", port, "-a", "secret"}, 0, `"master": "m"`, ""},
		{"unknown master", []string{"explain", "nope", "-p", port, "-a", "secret"}, 1, "", "ERR No such master with that name"},
		{"no password", []string{"explain", "m", "-p", port}, 1, "", "NOAUTH"},
		{"nobody there", []string{"explain", "m", "-p", "1"}, 1, "", "connection refused"},
		{"no master", []string{"explain"}, 1, "", "accepts 1 arg(s), received 0"},
		{"help", []string{"explain", "--help"}, 0, "-h, --host string", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut strings.Builder
			code := run(tc.args, &out, &errOut)
			if code != tc.code || !strings.Contains(out.String(), tc.stdout) || !strings.Contains(errOut.String(), tc.stderr) {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, out.String(), errOut.String())
			}
			if tc.name == "json" {
				var e map[string]any
				if err := json.Unmarshal([]byte(out.String()), &e); err != nil || e["stage"] == nil {
					t.Fatalf("not the explanation's JSON (%v):\n%s", err, out.String())
				}
			}
		})
	}
}

// TestExplainNotGoSentinel points explain at a server that does not know
// SENTINEL EXPLAIN (as redis-sentinel answers it): the error says why.
func TestExplainNotGoSentinel(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		buf := make([]byte, 512)
		for {
			n, err := c.Read(buf)
			if err != nil {
				return
			}
			reply := "-ERR unknown command 'hello', with args beginning with: '2' \r\n" // go-redis's HELLO 2 first
			if strings.Contains(string(buf[:n]), "EXPLAIN") {
				reply = "-ERR unknown subcommand 'EXPLAIN'. Try SENTINEL HELP.\r\n"
			}
			c.Write([]byte(reply))
		}
	}()
	var out, errOut strings.Builder
	code := run([]string{"explain", "m", "-p", strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)}, &out, &errOut)
	if code != 1 || !strings.Contains(errOut.String(), "does not know SENTINEL EXPLAIN (a go-sentinel extension)") {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut.String())
	}
}
