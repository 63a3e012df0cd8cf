package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"
)

// redisServer is one redis-server process started by the benchmark.
type redisServer struct {
	port int
	cmd  *exec.Cmd
}

// startRedis starts redis-server on port (a replica of master when
// masterPort is not 0) with persistence off, and waits until it answers.
func startRedis(dir string, port, masterPort int) (*redisServer, error) {
	args := []string{
		"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--dir", dir, "--daemonize", "no", "--logfile", filepath.Join(dir, fmt.Sprintf("redis-%d.log", port)),
		"--dbfilename", fmt.Sprintf("dump-%d.rdb", port),
		"--repl-diskless-sync", "yes", "--repl-diskless-sync-delay", "0", "--hz", strconv.Itoa(*redisHz),
	}
	if masterPort != 0 {
		args = append(args, "--replicaof", "127.0.0.1", strconv.Itoa(masterPort))
	}
	cmd := exec.Command("redis-server", args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("redis-server: %w", err)
	}
	r := &redisServer{port: port, cmd: cmd}
	go func() { _ = cmd.Wait() }()
	if err := waitPing(port, 10*time.Second); err != nil {
		r.kill()
		return nil, fmt.Errorf("redis-server on %d: %w", port, err)
	}
	return r, nil
}

// startDataNodes starts a master on ports[0] and a replica of it on each
// other port, and waits until every replica's link is up. On error the
// servers already started are killed.
func startDataNodes(dir string, ports []int) ([]*redisServer, error) {
	var servers []*redisServer
	fail := func(err error) ([]*redisServer, error) {
		for _, s := range servers {
			s.kill()
		}
		return nil, err
	}
	for k, p := range ports {
		mp := 0
		if k > 0 {
			mp = ports[0]
		}
		s, err := startRedis(dir, p, mp)
		if err != nil {
			return fail(err)
		}
		servers = append(servers, s)
	}
	if err := waitReplicasUp(ports[1:], 20*time.Second); err != nil {
		return fail(err)
	}
	return servers, nil
}

// kill sends SIGKILL to the server.
func (r *redisServer) kill() {
	if r.cmd.Process != nil {
		_ = r.cmd.Process.Kill()
	}
}

// waitPing polls PING on 127.0.0.1:port until it is answered.
func waitPing(port int, timeout time.Duration) error {
	c := newClient(port)
	defer c.Close()
	deadline := time.Now().Add(timeout)
	for pause := 10 * time.Millisecond; ; pause = min(2*pause, 500*time.Millisecond) {
		err := c.Ping(context.Background()).Err()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return err
		}
		time.Sleep(pause)
	}
}

// waitReplicasUp waits until every replica port reports master_link_status:up.
func waitReplicasUp(ports []int, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for _, p := range ports {
		c := newClient(p)
		for {
			info, err := c.Info(context.Background(), "replication").Result()
			if err == nil && strings.Contains(info, "master_link_status:up") {
				break
			}
			if time.Now().After(deadline) {
				c.Close()
				return fmt.Errorf("replica %d: link not up after %v", p, timeout)
			}
			time.Sleep(50 * time.Millisecond)
		}
		c.Close()
	}
	return nil
}

// newClient is a one-connection RESP2 client to 127.0.0.1:port that sends
// nothing but the commands it is given.
func newClient(port int) *redis.Client {
	return redis.NewClient(&redis.Options{
		Addr:            "127.0.0.1:" + strconv.Itoa(port),
		Protocol:        2,
		DisableIdentity: true,
		PoolSize:        1,
		MaxRetries:      -1,
		DialTimeout:     5 * time.Second,
		ReadTimeout:     30 * time.Second,
	})
}

// removeAll removes a work directory unless -keep was given.
func removeAll(dir string) {
	if *keepDirs {
		fmt.Fprintf(os.Stderr, "kept %s\n", dir)
		return
	}
	_ = os.RemoveAll(dir)
}

// soloMaster makes a temporary directory named after prefix and starts
// one redis-server in it, with no replica, on the first of 1+more free
// ports; the others are the caller's. On error nothing is left running
// or on disk.
func soloMaster(prefix string, more int) (dir string, ports []int, master *redisServer, err error) {
	dir, err = os.MkdirTemp("", prefix)
	if err != nil {
		return "", nil, nil, err
	}
	if ports, err = freePorts(1 + more); err == nil {
		master, err = startRedis(dir, ports[0], 0)
	}
	if err != nil {
		removeAll(dir)
		return "", nil, nil, err
	}
	return dir, ports, master, nil
}
