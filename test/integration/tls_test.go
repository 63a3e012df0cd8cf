package integration

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/go-sentinel/go-sentinel/internal/tlstest"
)

// tlsClient is a go-redis client that speaks TLS with the test certs.
func tlsClient(t *testing.T, f tlstest.Files, port int) *redis.Client {
	t.Helper()
	pair, err := tls.LoadX509KeyPair(f.Cert, f.Key)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	ca, _ := os.ReadFile(f.CA)
	pool.AppendCertsFromPEM(ca)
	c := redis.NewClient(&redis.Options{
		Addr: fmt.Sprintf("127.0.0.1:%d", port), Protocol: 2, DisableIdentity: true, MaxRetries: -1,
		DialTimeout: time.Second, ReadTimeout: 2 * time.Second,
		TLSConfig: &tls.Config{Certificates: []tls.Certificate{pair}, RootCAs: pool, ServerName: "localhost"},
	})
	t.Cleanup(func() { c.Close() })
	return c
}

func tlsArgs(f tlstest.Files) []string {
	return []string{"--tls-cert-file", f.Cert, "--tls-key-file", f.Key, "--tls-ca-cert-file", f.CA}
}

// TestTLSFleetFailsOver runs data nodes that only speak TLS and three
// go-sentinels with tls-replication: every link is TLS, and a failover
// still happens; redis-cli --tls can query a Sentinel's tls-port.
func TestTLSFleetFailsOver(t *testing.T) {
	bin := needBinary(t, "redis-server")
	f, err := tlstest.Generate(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	startTLSRedis := func(extra ...string) *proc {
		dir := t.TempDir()
		port := freePort(t)
		args := append([]string{"--port", "0", "--tls-port", fmt.Sprint(port), "--tls-replication", "yes", "--bind", "127.0.0.1",
			"--save", "", "--appendonly", "no", "--dir", dir, "--daemonize", "no"}, tlsArgs(f)...)
		p := start(t, dir, nil, bin, append(args, extra...)...)
		p.Port = port
		c := tlsClient(t, f, port)
		waitFor(t, 10*time.Second, "TLS redis-server", func() bool { return c.Ping(context.Background()).Err() == nil })
		return p
	}
	top := &topology{t: t, master: startTLSRedis()}
	for i := 0; i < 2; i++ {
		top.replicas = append(top.replicas, startTLSRedis("--replicaof", "127.0.0.1", fmt.Sprint(top.master.Port)))
	}
	tlsPorts := map[*proc]int{}
	for i := 0; i < 3; i++ {
		port, tport := freePort(t), freePort(t)
		conf := writeConf(t, top.sentinelConf(port, 2, fmt.Sprintf(
			"tls-port %d\ntls-replication yes\ntls-cert-file %s\ntls-key-file %s\ntls-ca-cert-file %s\n", tport, f.Cert, f.Key, f.CA)))
		p := startSentinel(t, conf, port, nil)
		top.sentinels = append(top.sentinels, p)
		top.confs = append(top.confs, conf)
		tlsPorts[p] = tport
	}
	waitDiscovery(t, top)
	// The Sentinels found each other through their TLS ports.
	v := doSlice(t, client(t, top.sentinels[0].Port), "SENTINEL", "SENTINELS", "mymaster")
	for _, e := range v {
		m := e.([]any)
		for i := 0; i+1 < len(m); i += 2 {
			if m[i] == "port" {
				found := false
				for _, tp := range tlsPorts {
					found = found || fmt.Sprint(tp) == m[i+1]
				}
				if !found {
					t.Errorf("sentinel announced port %v is not a tls-port", m[i+1])
				}
			}
		}
	}
	if cli, err := exec.LookPath("redis-cli"); err == nil {
		out, err := exec.Command(cli, "--tls", "--cert", f.Cert, "--key", f.Key, "--cacert", f.CA,
			"-p", fmt.Sprint(tlsPorts[top.sentinels[0]]), "SENTINEL", "GET-MASTER-ADDR-BY-NAME", "mymaster").CombinedOutput()
		if err != nil || !strings.Contains(string(out), fmt.Sprint(top.master.Port)) {
			t.Errorf("redis-cli --tls: %v %s", err, out)
		}
	}
	if err := tlsClient(t, f, tlsPorts[top.sentinels[1]]).Ping(context.Background()).Err(); err != nil {
		t.Errorf("TLS PING to the sentinel: %v", err)
	}
	old := top.master.Port
	killProc(top.master)
	waitFor(t, 60*time.Second, "a TLS failover agreed by all", func() bool {
		first := masterAddr(t, top.sentinels[0].Port)
		if first == "" || first == fmt.Sprintf("127.0.0.1:%d", old) {
			return false
		}
		for _, s := range top.sentinels[1:] {
			if masterAddr(t, s.Port) != first {
				return false
			}
		}
		return true
	})
}
