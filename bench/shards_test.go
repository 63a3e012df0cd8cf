package main

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestMain lets the test binary serve as a fixture process, as
// sentinel-bench does.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == shardCmd {
		if err := runShard(os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestFileLimitError(t *testing.T) {
	for _, tc := range []struct {
		masters, replicas, links int
		hard                     uint64
		fit                      string // "" when the run fits
	}{
		{1000, 1, 2, 20000, ""},
		{4500, 1, 2, 20000, ""},
		{4984, 1, 2, 20000, ""},
		{5000, 1, 2, 20000, "run at most 4984 masters"},
		{5000, 2, 2, 20000, "run at most 3322 masters"},
		{5000, 1, 2, 1 << 20, ""},
		{10, 1, 2, 10, "run at most 0 masters"},
		{5000, 1, 1, 20000, ""}, // one link per instance: the goal fits
		{9968, 1, 1, 20000, ""},
		{9969, 1, 1, 20000, "run at most 9968 masters"},
	} {
		err := fileLimitError(tc.masters, tc.replicas, tc.links, tc.hard)
		switch {
		case tc.fit == "" && err != nil:
			t.Errorf("%d masters × %d, hard %d: %v", tc.masters, tc.replicas, tc.hard, err)
		case tc.fit != "" && (err == nil || !strings.Contains(err.Error(), tc.fit)):
			t.Errorf("%d masters × %d, hard %d: %v, want %q", tc.masters, tc.replicas, tc.hard, err, tc.fit)
		}
	}
}

// TestShardedBackend starts 5 masters in fixture processes of 2, checks
// that every master answers PING and INFO as a master, kills the first 3
// across two shards and checks that exactly those are gone.
func TestShardedBackend(t *testing.T) {
	be, err := newShardedBackend(5, 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(be.close)
	if len(be.shards) != 3 || len(be.masters()) != 5 || len(be.pids()) != 3 {
		t.Fatalf("%d shards, %d masters, %d pids", len(be.shards), len(be.masters()), len(be.pids()))
	}
	for k, m := range be.masters() {
		if m.name != "m"+strconv.Itoa(k) {
			t.Errorf("master %d is named %q", k, m.name)
		}
		if got := roundTrip(t, m.port, "INFO replication"); !strings.Contains(got, "role:master") {
			t.Errorf("%s: INFO %q", m.name, got)
		}
	}
	be.kill(3)
	deadline := time.Now().Add(10 * time.Second)
	for k, m := range be.masters() {
		for dialable(m.port) != (k >= 3) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: reachable %v after kill(3)", m.name, k < 3)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	if _, err := sampleFixtureCPU(be); err != nil {
		t.Error(err)
	}
}

func dialable(port int) bool {
	c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), time.Second)
	if err != nil {
		return false
	}
	_ = c.Close()
	return true
}

// roundTrip sends cmd (space-separated words) as a RESP array and
// returns what one read gives.
func roundTrip(t *testing.T, port int, cmd string) string {
	t.Helper()
	c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	words := strings.Fields(cmd)
	req := fmt.Sprintf("*%d\r\n", len(words))
	for _, w := range words {
		req += fmt.Sprintf("$%d\r\n%s\r\n", len(w), w)
	}
	if _, err := c.Write([]byte(req)); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4096)
	n, err := c.Read(buf)
	if err != nil {
		t.Fatal(err)
	}
	return string(buf[:n])
}
