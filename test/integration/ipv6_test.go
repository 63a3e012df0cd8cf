package integration

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestIPv6Fleet runs data nodes and go-sentinels on ::1 only: addresses
// in replies, replica names ([::1]:port), hellos and the failover all
// work with IPv6.
func TestIPv6Fleet(t *testing.T) {
	if ln, err := net.Listen("tcp", "[::1]:0"); err != nil {
		t.Skip("no IPv6 loopback here")
	} else {
		ln.Close()
	}
	bin := needBinary(t, "redis-server")
	v6 := func(port int) *redis.Client {
		c := redis.NewClient(&redis.Options{Addr: fmt.Sprintf("[::1]:%d", port), Protocol: 2, DisableIdentity: true,
			MaxRetries: -1, DialTimeout: time.Second, ReadTimeout: 2 * time.Second})
		t.Cleanup(func() { c.Close() })
		return c
	}
	startV6 := func(extra ...string) *proc {
		dir := t.TempDir()
		port := freePort(t)
		p := start(t, dir, nil, bin, append([]string{"--port", fmt.Sprint(port), "--bind", "::1", "--save", "",
			"--appendonly", "no", "--dir", dir, "--daemonize", "no"}, extra...)...)
		p.Port = port
		c := v6(port)
		waitFor(t, 10*time.Second, "redis-server on ::1", func() bool { return c.Ping(context.Background()).Err() == nil })
		return p
	}
	master := startV6()
	r1 := startV6("--replicaof", "::1", fmt.Sprint(master.Port))
	startV6("--replicaof", "::1", fmt.Sprint(master.Port))
	var sentinels []*proc
	for i := 0; i < 3; i++ {
		port := freePort(t)
		conf := writeConf(t, fmt.Sprintf("port %d\nbind ::1\nsentinel monitor mymaster ::1 %d 2\n"+
			"sentinel down-after-milliseconds mymaster 2000\nsentinel failover-timeout mymaster 10000\n", port, master.Port))
		p := start(t, t.TempDir(), nil, sentinelBin, conf)
		p.Port = port
		c := v6(port)
		waitFor(t, 10*time.Second, "go-sentinel on ::1", func() bool { return c.Ping(context.Background()).Err() == nil })
		sentinels = append(sentinels, p)
	}
	ctx := context.Background()
	for _, s := range sentinels {
		c := v6(s.Port)
		waitFor(t, 15*time.Second, "IPv6 discovery", func() bool {
			r, _ := c.Do(ctx, "SENTINEL", "REPLICAS", "mymaster").Slice()
			o, _ := c.Do(ctx, "SENTINEL", "SENTINELS", "mymaster").Slice()
			return len(r) == 2 && len(o) == 2
		})
		r, _ := c.Do(ctx, "SENTINEL", "REPLICAS", "mymaster").Slice()
		first := fmt.Sprint(r[0])
		if !strings.Contains(first, "[::1]:") || !strings.Contains(first, " ip ::1 ") && !strings.Contains(first, "ip ::1") {
			t.Errorf("replica entry %s", first)
		}
	}
	killProc(master)
	waitFor(t, 60*time.Second, "an IPv6 failover", func() bool {
		v, err := v6(sentinels[0].Port).Do(ctx, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", "mymaster").StringSlice()
		return err == nil && len(v) == 2 && v[0] == "::1" && v[1] != fmt.Sprint(master.Port)
	})
	_ = r1
}
