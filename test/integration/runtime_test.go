package integration

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestRuntimeReconfiguration drives a live fleet only through commands:
// MONITOR, SET, RESET and REMOVE, each persisted before the reply.
func TestRuntimeReconfiguration(t *testing.T) {
	top := startData(t, 2)
	ctx := context.Background()
	for i := 0; i < 3; i++ {
		port := freePort(t)
		conf := writeConf(t, fmt.Sprintf("port %d\n", port))
		top.sentinels = append(top.sentinels, startSentinel(t, conf, port, nil))
		top.confs = append(top.confs, conf)
	}
	for i, s := range top.sentinels {
		c := client(t, s.Port)
		if err := c.Do(ctx, "SENTINEL", "MONITOR", "mymaster", "127.0.0.1", fmt.Sprint(top.master.Port), "2").Err(); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(readFile(t, top.confs[i]), fmt.Sprintf("sentinel monitor mymaster 127.0.0.1 %d 2", top.master.Port)) {
			t.Fatal("MONITOR not persisted before the reply")
		}
		if err := c.Do(ctx, "SENTINEL", "SET", "mymaster", "down-after-milliseconds", "3000", "quorum", "2", "parallel-syncs", "2").Err(); err != nil {
			t.Fatal(err)
		}
		conf := readFile(t, top.confs[i])
		for _, want := range []string{"sentinel down-after-milliseconds mymaster 3000", "sentinel parallel-syncs mymaster 2"} {
			if !hasLine(conf, want) {
				t.Errorf("SET not persisted: missing %q", want)
			}
		}
		// A bad pair changes nothing, not even the good pair before it.
		err := c.Do(ctx, "SENTINEL", "SET", "mymaster", "quorum", "3", "down-after-milliseconds", "-20").Err()
		if err == nil || err.Error() != "ERR Invalid argument '-20' for SENTINEL SET 'down-after-milliseconds'" {
			t.Errorf("bad SET: %v", err)
		}
		if q := sentinelField(t, s.Port, "quorum"); q != "2" {
			t.Errorf("quorum changed to %s by a rejected SET", q)
		}
		if err := c.Do(ctx, "SENTINEL", "MONITOR", "mymaster", "127.0.0.1", "1", "2").Err(); err == nil || err.Error() != "ERR Duplicate master name." {
			t.Errorf("duplicate MONITOR: %v", err)
		}
	}
	waitDiscovery(t, top)
	c := client(t, top.sentinels[0].Port)
	if n, err := c.Do(ctx, "SENTINEL", "RESET", "my*").Int(); err != nil || n != 1 {
		t.Fatalf("RESET: %d %v", n, err)
	}
	if l := listLen(t, top.sentinels[0].Port, "SENTINELS"); l != 0 {
		t.Errorf("after RESET %d sentinels", l)
	}
	waitDiscovery(t, top) // rediscovered from INFO and hellos
	if err := c.Do(ctx, "SENTINEL", "REMOVE", "mymaster").Err(); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(readFile(t, top.confs[0]), "mymaster") {
		t.Errorf("REMOVE not persisted:\n%s", readFile(t, top.confs[0]))
	}
	info, _ := c.Info(ctx, "sentinel").Result()
	if !strings.Contains(info, "sentinel_masters:0") {
		t.Errorf("INFO after REMOVE: %s", info)
	}
}

// TestAuthenticatedFleetFailsOver: data nodes require an ACL user with
// the minimal command set Sentinel needs, Sentinels require a password
// and authenticate to each other with sentinel-pass.
func TestAuthenticatedFleetFailsOver(t *testing.T) {
	acl := append([]string{"--user"}, strings.Fields("sentinel-user on >s3cr3t allchannels +multi +slaveof +ping +exec +subscribe +config|rewrite +role +publish +info +client|setname +client|kill +script|kill")...)
	acl = append(acl, "--user", "default", "on", ">datapass", "~*", "&*", "+@all")
	top := &topology{t: t, master: startRedisAuth(t, acl...)}
	for i := 0; i < 2; i++ {
		top.replicas = append(top.replicas, startRedisAuth(t, append(acl, "--replicaof", "127.0.0.1", fmt.Sprint(top.master.Port), "--masterauth", "datapass")...))
	}
	extra := "requirepass sentpass\nsentinel sentinel-pass sentpass\nsentinel auth-user mymaster sentinel-user\nsentinel auth-pass mymaster s3cr3t\n"
	for i := 0; i < 3; i++ {
		top.addGoSentinel(2, extra)
	}
	for _, s := range top.sentinels {
		s := s
		c := client(t, s.Port)
		c.Do(context.Background(), "AUTH", "sentpass")
		waitFor(t, 15*time.Second, "authenticated discovery", func() bool {
			r, err := c.Do(context.Background(), "SENTINEL", "SENTINELS", "mymaster").Slice()
			r2, err2 := c.Do(context.Background(), "SENTINEL", "REPLICAS", "mymaster").Slice()
			return err == nil && err2 == nil && len(r) == 2 && len(r2) == 2
		})
	}
	old := top.master.Port
	killProc(top.master)
	waitFor(t, 60*time.Second, "a failover", func() bool {
		c := client(t, top.sentinels[0].Port)
		c.Do(context.Background(), "AUTH", "sentpass")
		v, err := c.Do(context.Background(), "SENTINEL", "GET-MASTER-ADDR-BY-NAME", "mymaster").StringSlice()
		return err == nil && len(v) == 2 && v[1] != fmt.Sprint(old)
	})
}

// startRedisAuth starts a redis-server whose clients must authenticate.
func startRedisAuth(t *testing.T, extra ...string) *proc {
	t.Helper()
	bin := needBinary(t, "redis-server")
	dir := t.TempDir()
	port := freePort(t)
	args := append([]string{"--port", fmt.Sprint(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--dir", dir, "--daemonize", "no"}, extra...)
	p := start(t, dir, nil, bin, args...)
	p.Port = port
	waitFor(t, 10*time.Second, "redis-server", func() bool { return alive(port) })
	return p
}

// TestMonitorByHostname monitors the master as "localhost" with
// resolve-hostnames yes and fails it over.
func TestMonitorByHostname(t *testing.T) {
	top := startData(t, 2)
	for i := 0; i < 3; i++ {
		port := freePort(t)
		conf := writeConf(t, fmt.Sprintf("port %d\nsentinel resolve-hostnames yes\nsentinel monitor mymaster localhost %d 2\n"+
			"sentinel down-after-milliseconds mymaster 2000\nsentinel failover-timeout mymaster 10000\n", port, top.master.Port))
		top.sentinels = append(top.sentinels, startSentinel(t, conf, port, nil))
		top.confs = append(top.confs, conf)
	}
	waitDiscovery(t, top)
	killProc(top.master)
	waitFor(t, 60*time.Second, "a failover away from localhost", func() bool {
		a := masterAddr(t, top.sentinels[0].Port)
		return a != "" && !strings.HasSuffix(a, fmt.Sprintf(":%d", top.master.Port))
	})
}
