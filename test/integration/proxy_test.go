package integration

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// proxyFleet starts a master with one replica and three go-sentinels
// (quorum 2), each with a master-following proxy; it waits until every
// Sentinel knows the two others and every proxy forwards.
func proxyFleet(t *testing.T, extra string) (*topology, []int, []string) {
	t.Helper()
	top := startData(t, 1)
	var proxies []int
	var metricsAddrs []string
	for range 3 {
		p := freePort(t)
		proxies = append(proxies, p)
		ma := fmt.Sprintf("127.0.0.1:%d", freePort(t))
		metricsAddrs = append(metricsAddrs, ma)
		top.addGoSentinel(2, fmt.Sprintf("sentinel proxy mymaster 127.0.0.1 %d\nmetrics-addr %s\n%s", p, ma, extra))
	}
	for _, s := range top.sentinels {
		waitFor(t, 20*time.Second, "every Sentinel to know its two peers and forward", func() bool {
			return sentinelField(t, s.Port, "num-other-sentinels") == "2" &&
				sentinelField(t, s.Port, "proxy-state") == "forwarding"
		})
	}
	return top, proxies, metricsAddrs
}

// portThrough asks, through the proxy on port, which port the Redis it
// reaches listens on.
func portThrough(port int) (string, error) {
	c := redis.NewClient(&redis.Options{Addr: fmt.Sprintf("127.0.0.1:%d", port), MaxRetries: -1, DialTimeout: time.Second, ReadTimeout: time.Second})
	defer c.Close()
	v, err := c.ConfigGet(context.Background(), "port").Result()
	if err != nil {
		return "", err
	}
	return v["port"], nil
}

// rawConn is a connection through a proxy that sends RESP by hand.
type rawConn struct {
	c net.Conn
	r *bufio.Reader
}

func dialRaw(t *testing.T, port int) *rawConn {
	t.Helper()
	c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return &rawConn{c: c, r: bufio.NewReader(c)}
}

// ping sends PING and returns the reply line.
func (rc *rawConn) ping(timeout time.Duration) (string, error) {
	_ = rc.c.SetDeadline(time.Now().Add(timeout))
	if _, err := io.WriteString(rc.c, "*1\r\n$4\r\nPING\r\n"); err != nil {
		return "", err
	}
	l, err := rc.r.ReadString('\n')
	return strings.TrimSpace(l), err
}

// TestProxyFollowsFailover: each go-sentinel's proxy forwards to the
// master; when the master dies, a connection through it is closed, and
// once +switch-master is out every proxy forwards to the promoted
// replica; the config rewrite keeps the proxy line.
func TestProxyFollowsFailover(t *testing.T) {
	top, proxies, metricsAddrs := proxyFleet(t, "")
	logs := []*eventLog{watchEvents(t, top.sentinels[0].Port)}
	for _, p := range proxies {
		got, err := portThrough(p)
		if err != nil || got != fmt.Sprint(top.master.Port) {
			t.Fatalf("proxy %d reaches port %q (%v), want the master's %d", p, got, err, top.master.Port)
		}
	}
	held := dialRaw(t, proxies[0])
	if l, err := held.ping(2 * time.Second); l != "+PONG" {
		t.Fatalf("PING through the proxy: %q %v", l, err)
	}
	newMaster := waitFailover(t, top, logs)
	// The connection to the dead master was closed by the proxy (or by
	// the kill itself); it never reaches the new master.
	if l, err := held.ping(2 * time.Second); err == nil {
		t.Fatalf("the connection opened to the old master still answers: %q", l)
	}
	for _, p := range proxies {
		waitFor(t, 10*time.Second, "the proxy to forward to the new master", func() bool {
			got, err := portThrough(p)
			return err == nil && got == fmt.Sprint(newMaster.Port)
		})
	}
	for k, conf := range top.confs {
		if !hasLine(readFile(t, conf), fmt.Sprintf("sentinel proxy mymaster 127.0.0.1 %d", proxies[k])) {
			t.Errorf("config %d lost its proxy line:\n%s", k, readFile(t, conf))
		}
	}
	// Every proxy timed its first byte to the new master against the
	// switch, and counts what it forwarded.
	for k, ma := range metricsAddrs {
		m := mustScrape(t, ma)
		if m[`sentinel_proxy_switch_to_first_byte_seconds_count{master_name="mymaster"}`] != 1 ||
			m[`sentinel_proxy_connections_accepted_total{master_name="mymaster"}`] < 2 ||
			m[`sentinel_proxy_bytes_total{direction="to_client",master_name="mymaster"}`] == 0 {
			t.Errorf("sentinel %d proxy metrics: %v", k, proxyMetrics(m))
		}
		t.Logf("sentinel %d: +switch-master to the first byte to the new master %.1f ms",
			k, 1000*m[`sentinel_proxy_switch_to_first_byte_seconds_sum{master_name="mymaster"}`])
	}
	if !logs[0].has("+proxy-fenced master mymaster") || !logs[0].has("-proxy-fenced master mymaster 127.0.0.1 "+fmt.Sprint(newMaster.Port)) {
		t.Errorf("events:\n%s", logs[0])
	}
}

// TestProxyFencesWithoutMajority: a Sentinel whose two peers stop
// answering fences its proxy within proxy-fence-after, well before
// down-after: its open connection is closed, a new one waits the hold
// out and is closed without a byte reaching the master; when the peers
// answer again it forwards again. With proxy-fencing no it keeps
// forwarding.
func TestProxyFencesWithoutMajority(t *testing.T) {
	top, proxies, metricsAddrs := proxyFleet(t, "sentinel proxy-fence-after mymaster 1000\nsentinel proxy-hold mymaster 300\n")
	ev := watchEvents(t, top.sentinels[0].Port)
	open := dialRaw(t, proxies[0])
	if l, _ := open.ping(2 * time.Second); l != "+PONG" {
		t.Fatalf("PING through the proxy: %q", l)
	}
	peers := top.sentinels[1:]
	for _, p := range peers {
		p.signal(syscall.SIGSTOP)
	}
	resumed := false
	resume := func() {
		if !resumed {
			for _, p := range peers {
				p.signal(syscall.SIGCONT)
			}
			resumed = true
		}
	}
	t.Cleanup(resume)
	stopped := time.Now()
	waitFor(t, 5*time.Second, "the proxy to fence", func() bool {
		return strings.HasPrefix(sentinelField(t, top.sentinels[0].Port, "proxy-state"), "fenced: 1 of the 3 Sentinels")
	})
	if d := time.Since(stopped); d > 1900*time.Millisecond {
		t.Errorf("fenced %v after the peers stopped, down-after is 2 s", d)
	}
	if l, err := open.ping(2 * time.Second); err == nil {
		t.Errorf("an open connection still answers while fenced: %q", l)
	}
	c := dialRaw(t, proxies[0])
	if l, err := c.ping(3 * time.Second); err == nil {
		t.Errorf("a new connection was answered while fenced: %q", l)
	}
	if !ev.has("+proxy-fenced master mymaster") {
		t.Errorf("no +proxy-fenced event:\n%s", ev)
	}
	m := mustScrape(t, metricsAddrs[0])
	if m[`sentinel_proxy_fenced{master_name="mymaster"}`] != 1 || m[`sentinel_proxy_fenced_seconds_total{master_name="mymaster"}`] <= 0 ||
		m[`sentinel_proxy_connections_cut_total{master_name="mymaster"}`] < 1 || m[`sentinel_proxy_connections_hold_expired_total{master_name="mymaster"}`] < 1 {
		t.Errorf("proxy metrics while fenced: %v", proxyMetrics(m))
	}
	// Fencing off: the same Sentinel forwards without its peers.
	if err := client(t, top.sentinels[0].Port).Do(context.Background(), "SENTINEL", "SET", "mymaster", "proxy-fencing", "no").Err(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 5*time.Second, "the proxy to forward with fencing off", func() bool {
		got, err := portThrough(proxies[0])
		return err == nil && got == fmt.Sprint(top.master.Port)
	})
	if err := client(t, top.sentinels[0].Port).Do(context.Background(), "SENTINEL", "SET", "mymaster", "proxy-fencing", "yes").Err(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 5*time.Second, "the proxy to fence again", func() bool {
		return strings.HasPrefix(sentinelField(t, top.sentinels[0].Port, "proxy-state"), "fenced")
	})
	resume()
	waitFor(t, 10*time.Second, "the proxy to forward once the peers answer", func() bool {
		got, err := portThrough(proxies[0])
		return err == nil && got == fmt.Sprint(top.master.Port)
	})
}

// TestProxyBadAddressRefusesToStart: a proxy address that cannot be bound
// stops the start with a clear error, as a bad port does.
func TestProxyBadAddressRefusesToStart(t *testing.T) {
	top := startData(t, 0)
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	port := freePort(t)
	conf := writeConf(t, top.sentinelConf(port, 1, "sentinel proxy mymaster "+strings.Replace(busy.Addr().String(), ":", " ", 1)+"\n"))
	p := start(t, t.TempDir(), nil, sentinelBin, conf)
	if code := p.waitExit(10 * time.Second); code == 0 {
		t.Fatalf("exit code 0 with a busy proxy address:\n%s", p.out.String())
	}
	if !strings.Contains(p.out.String(), "cannot start the master proxy") {
		t.Errorf("output:\n%s", p.out.String())
	}
}

// proxyMetrics are the sentinel_proxy_* samples of a scrape.
func proxyMetrics(m map[string]float64) map[string]float64 {
	out := map[string]float64{}
	for k, v := range m {
		if strings.HasPrefix(k, "sentinel_proxy_") {
			out[k] = v
		}
	}
	return out
}
