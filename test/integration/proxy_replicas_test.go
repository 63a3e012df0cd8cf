package integration

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// readFleet starts a master with two replicas and three go-sentinels
// (quorum 2, down-after 30 s so that no replica goes SDOWN during the
// test: the lag must be what excludes it), each with a read port
// (proxy-replica-max-lag 3000 ms, proxy-hold 500 ms); it waits until
// every read port serves both replicas.
func readFleet(t *testing.T) (*topology, []int, []string) {
	t.Helper()
	top := startData(t, 2)
	var ports []int
	var metricsAddrs []string
	for range 3 {
		p := freePort(t)
		ports = append(ports, p)
		ma := fmt.Sprintf("127.0.0.1:%d", freePort(t))
		metricsAddrs = append(metricsAddrs, ma)
		top.addGoSentinel(2, fmt.Sprintf("sentinel down-after-milliseconds mymaster 30000\nsentinel proxy-replicas mymaster 127.0.0.1 %d\n"+
			"sentinel proxy-replica-max-lag mymaster 3000\nsentinel proxy-hold mymaster 500\nmetrics-addr %s\n", p, ma))
	}
	for _, s := range top.sentinels {
		waitFor(t, 20*time.Second, "every read port to serve both replicas", func() bool {
			return sentinelField(t, s.Port, "num-other-sentinels") == "2" &&
				sentinelField(t, s.Port, "proxy-replicas-state") == readState(top.replicas...)
		})
	}
	return top, ports, metricsAddrs
}

// readState is proxy-replicas-state while the read port serves rs (in
// the order of their names, ip:port).
func readState(rs ...*proc) string {
	var f []string
	for _, r := range rs {
		f = append(f, fmt.Sprintf("127.0.0.1:%d", r.Port))
	}
	slices.Sort(f)
	return "replicas: " + strings.ReplaceAll(strings.Join(f, " "), ":", " ")
}

// portOver asks, over rc, which port the Redis it reaches listens on.
func (rc *rawConn) portOver(timeout time.Duration) (string, error) {
	_ = rc.c.SetDeadline(time.Now().Add(timeout))
	if _, err := io.WriteString(rc.c, "*3\r\n$6\r\nCONFIG\r\n$3\r\nGET\r\n$4\r\nport\r\n"); err != nil {
		return "", err
	}
	var last string
	for range 5 { // *2, $4, port, $N, <port>
		l, err := rc.r.ReadString('\n')
		if err != nil {
			return "", err
		}
		last = strings.TrimSpace(l)
	}
	return last, nil
}

// TestProxyReplicasSpreadLagFallback: a read port spreads connections
// over both replicas; a replica made to lag (SIGSTOP: the master's INFO
// shows its acknowledged offset stand still while the master's moves on)
// has its connections cut within max-lag and gets no new ones, and is
// served again once it catches up; with both lagging the master serves
// (proxy-replicas-fallback), and with the fallback off nothing does.
func TestProxyReplicasSpreadLagFallback(t *testing.T) {
	top, ports, metricsAddrs := readFleet(t)
	ev := watchEvents(t, top.sentinels[0].Port)
	r0, r1 := fmt.Sprint(top.replicas[0].Port), fmt.Sprint(top.replicas[1].Port)

	// Spread: four connections, two on each replica.
	on := map[string][]*rawConn{}
	for range 4 {
		rc := dialRaw(t, ports[0])
		p, err := rc.portOver(2 * time.Second)
		if err != nil {
			t.Fatalf("CONFIG GET port through the read port: %v", err)
		}
		on[p] = append(on[p], rc)
	}
	if len(on[r0]) != 2 || len(on[r1]) != 2 {
		t.Fatalf("spread: %d on %s, %d on %s; want 2 and 2", len(on[r0]), r0, len(on[r1]), r1)
	}

	// Replica 0 lags: its connections are cut, replica 1's stay.
	stopped := []*proc{top.replicas[0]}
	t.Cleanup(func() {
		for _, p := range stopped {
			_ = p.cmd.Process.Signal(syscall.SIGCONT)
		}
	})
	top.replicas[0].signal(syscall.SIGSTOP)
	at := time.Now()
	waitFor(t, 8*time.Second, "replica 0 to leave the read port", func() bool {
		return sentinelField(t, top.sentinels[0].Port, "proxy-replicas-state") == readState(top.replicas[1])
	})
	left := time.Since(at)
	t.Logf("replica 0 left the read port %v after it stopped (max-lag 3 s)", left.Round(10*time.Millisecond))
	// Its data is as old as its last acknowledgement (sent every second)
	// before the stop, and its lag is counted from the newest INFO
	// sample its offset reaches, which may be up to a second older than
	// that acknowledgement (readroute.Lag errs on the stale side): it
	// leaves between max-lag - 2 s and max-lag + 2 s after the stop.
	if left < time.Second {
		t.Errorf("replica 0 left after %v, before it lagged max-lag", left)
	}
	for _, rc := range on[r0] {
		if p, err := rc.portOver(time.Second); err == nil {
			t.Errorf("a connection to the lagging replica still answers: %q", p)
		}
	}
	for _, rc := range on[r1] {
		if p, err := rc.portOver(2 * time.Second); err != nil || p != r1 {
			t.Errorf("a connection to the healthy replica: %q %v", p, err)
		}
	}
	for range 3 {
		rc := dialRaw(t, ports[0])
		if p, err := rc.portOver(2 * time.Second); err != nil || p != r1 {
			t.Errorf("a new connection went to %q (%v), want replica 1 %s", p, err, r1)
		}
	}
	if !ev.has(fmt.Sprintf("-proxy-replica slave 127.0.0.1:%s 127.0.0.1 %s @ mymaster", r0, r0)) {
		t.Errorf("no -proxy-replica event:\n%s", ev)
	}

	// It catches up: served again.
	top.replicas[0].signal(syscall.SIGCONT)
	stopped = nil
	waitFor(t, 10*time.Second, "replica 0 to be served again", func() bool {
		return sentinelField(t, top.sentinels[0].Port, "proxy-replicas-state") == readState(top.replicas...)
	})

	// Both lag: the master serves.
	stopped = top.replicas
	for _, r := range top.replicas {
		r.signal(syscall.SIGSTOP)
	}
	waitFor(t, 8*time.Second, "the read port to fall back to the master", func() bool {
		return sentinelField(t, top.sentinels[0].Port, "proxy-replicas-state") == "master: no replica qualifies"
	})
	rc := dialRaw(t, ports[0])
	if p, err := rc.portOver(2 * time.Second); err != nil || p != fmt.Sprint(top.master.Port) {
		t.Errorf("with no replica qualifying a connection went to %q (%v), want the master %d", p, err, top.master.Port)
	}
	if !ev.has("+proxy-replicas-fallback master mymaster") {
		t.Errorf("no +proxy-replicas-fallback event:\n%s", ev)
	}

	// Without the fallback nothing serves: the master's connection is
	// cut, and a new connection waits proxy-hold out unanswered.
	if err := client(t, top.sentinels[0].Port).Do(context.Background(), "SENTINEL", "SET", "mymaster", "proxy-replicas-fallback", "no").Err(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 3*time.Second, "the read port to fence", func() bool {
		return strings.HasPrefix(sentinelField(t, top.sentinels[0].Port, "proxy-replicas-state"), "fenced: no replica qualifies")
	})
	if p, err := rc.portOver(time.Second); err == nil {
		t.Errorf("the connection to the master still answers without the fallback: %q", p)
	}
	if p, err := dialRaw(t, ports[0]).portOver(2 * time.Second); err == nil {
		t.Errorf("a new connection was answered with nothing to serve it: %q", p)
	}
	for _, r := range top.replicas {
		r.signal(syscall.SIGCONT)
	}
	stopped = nil
	waitFor(t, 10*time.Second, "both replicas to be served again", func() bool {
		return sentinelField(t, top.sentinels[0].Port, "proxy-replicas-state") == readState(top.replicas...)
	})

	last := dialRaw(t, ports[0])
	lastOn, err := last.portOver(2 * time.Second)
	if err != nil || (lastOn != r0 && lastOn != r1) {
		t.Fatalf("a connection once both are served again went to %q (%v)", lastOn, err)
	}
	m := mustScrape(t, metricsAddrs[0])
	if m[`sentinel_proxy_replicas_connections_cut_total{master_name="mymaster"}`] < 3 ||
		m[`sentinel_proxy_replicas_connections_hold_expired_total{master_name="mymaster"}`] < 1 ||
		m[`sentinel_proxy_replicas_serving{master_name="mymaster"}`] != 2 ||
		m[fmt.Sprintf(`sentinel_proxy_replicas_connections_open_by_target{master_name="mymaster",target="127.0.0.1:%s"}`, lastOn)] != 1 {
		t.Errorf("read port metrics: %v", readMetrics(m))
	}
	for k, conf := range top.confs {
		if !hasLine(readFile(t, conf), fmt.Sprintf("sentinel proxy-replicas mymaster 127.0.0.1 %d", ports[k])) {
			t.Errorf("config %d lost its proxy-replicas line:\n%s", k, readFile(t, conf))
		}
	}
}

// readMetrics are the read port's series of m.
func readMetrics(m map[string]float64) map[string]float64 {
	out := map[string]float64{}
	for k, v := range m {
		if strings.HasPrefix(k, "sentinel_proxy_replicas_") {
			out[k] = v
		}
	}
	return out
}

// TestProxyReplicasFollowFailover: the master dies and a replica is
// promoted: the connection to the promoted replica is cut, and once the
// switch is out the read port serves the replica that now follows the
// new master, and never the new master as a replica.
func TestProxyReplicasFollowFailover(t *testing.T) {
	top := startData(t, 2)
	var ports []int
	for range 3 {
		p := freePort(t)
		ports = append(ports, p)
		top.addGoSentinel(2, fmt.Sprintf("sentinel proxy-replicas mymaster 127.0.0.1 %d\n", p))
	}
	for _, s := range top.sentinels {
		waitFor(t, 20*time.Second, "every read port to serve both replicas", func() bool {
			return sentinelField(t, s.Port, "num-other-sentinels") == "2" &&
				sentinelField(t, s.Port, "proxy-replicas-state") == readState(top.replicas...)
		})
	}
	logs := []*eventLog{watchEvents(t, top.sentinels[0].Port), watchEvents(t, top.sentinels[1].Port), watchEvents(t, top.sentinels[2].Port)}
	on := map[string]*rawConn{}
	for len(on) < 2 {
		rc := dialRaw(t, ports[0])
		p, err := rc.portOver(2 * time.Second)
		if err != nil {
			t.Fatalf("CONFIG GET port through the read port: %v", err)
		}
		on[p] = rc
	}
	newMaster := waitFailover(t, top, logs)
	var other *proc
	for _, r := range top.replicas {
		if r != newMaster {
			other = r
		}
	}
	if p, err := on[fmt.Sprint(newMaster.Port)].portOver(time.Second); err == nil {
		t.Errorf("the connection to the promoted replica still answers: %q", p)
	}
	for k, s := range top.sentinels {
		waitFor(t, 20*time.Second, fmt.Sprintf("read port %d to serve the remaining replica", k), func() bool {
			return sentinelField(t, s.Port, "proxy-replicas-state") == readState(other)
		})
	}
	for range 3 {
		rc := dialRaw(t, ports[0])
		if p, err := rc.portOver(2 * time.Second); err != nil || p != fmt.Sprint(other.Port) {
			t.Errorf("after the failover a connection went to %q (%v), want the replica %d", p, err, other.Port)
		}
	}
	if !logs[0].has(fmt.Sprintf("-proxy-replica slave 127.0.0.1:%d 127.0.0.1 %d @ mymaster", newMaster.Port, newMaster.Port)) {
		t.Errorf("no -proxy-replica for the promoted replica:\n%s", logs[0])
	}
}
