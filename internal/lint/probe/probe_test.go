package probe

import (
	"context"
	"net"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/config"
)

func TestParseInfoAndReplicaLines(t *testing.T) {
	text := "# Replication\r\nrole:master\r\nconnected_slaves:2\r\n" +
		"slave0:ip=127.0.0.1,port=6380,state=online,offset=14,lag=0\r\n" +
		"slave1:ip=::1,port=6381,state=online,offset=14,lag=1\r\n" +
		"master_failover_state:no-failover\r\n\r\n# Memory\r\nused_memory:1036344\r\n"
	info := parseInfo(text)
	if info["role"] != "master" || info["used_memory"] != "1036344" || info["master_failover_state"] != "no-failover" {
		t.Fatalf("got %v", info)
	}
	if got := replicaLines(info); !reflect.DeepEqual(got, []string{"127.0.0.1:6380", "[::1]:6381"}) {
		t.Fatalf("replicas %v", got)
	}
}

// TestGatherUnreachable checks that a Sentinel that refuses connections
// is reported as such and that no master facts are made up.
func TestGatherUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cfg, err := config.Parse("/s.conf", []byte("sentinel monitor m 127.0.0.1 6379 2\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	Quiet()
	f := Gather(context.Background(), cfg, []string{addr}, Options{Timeout: time.Second})
	if len(f.Sentinels) != 1 || !strings.Contains(f.Sentinels[0].Err, "refused") || len(f.Masters) != 0 {
		t.Fatalf("got %+v", f)
	}
}
