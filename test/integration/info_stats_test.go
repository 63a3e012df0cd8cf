package integration

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/resptest"
)

// infoFields parses an INFO reply (the raw bulk string) into its fields,
// in order.
func infoFields(raw string) (keys []string, vals map[string]string) {
	vals = map[string]string{}
	for _, l := range strings.Split(raw, "\r\n") {
		if k, v, ok := strings.Cut(l, ":"); ok && !strings.HasPrefix(l, "$") {
			keys = append(keys, k)
			vals[k] = v
		}
	}
	return keys, vals
}

func infoNum(t *testing.T, vals map[string]string, k string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(vals[k], 64)
	if err != nil {
		t.Fatalf("INFO %s = %q", k, vals[k])
	}
	return v
}

// startBareSentinel starts a Sentinel of the given kind watching a master
// nobody runs, and returns its port.
func startBareSentinel(t *testing.T, kind daemonKind) int {
	t.Helper()
	port := freePort(t)
	conf := writeConf(t, fmt.Sprintf("port %d\nsentinel monitor m 127.0.0.1 %d 2\n", port, freePort(t)))
	if kind == goSentinel {
		startSentinel(t, conf, port, nil)
		return port
	}
	p := start(t, filepath.Dir(conf), nil, needBinary(t, "redis-sentinel"), conf)
	waitFor(t, 10*time.Second, "redis-sentinel to answer", func() bool {
		if done, _ := p.exited(); done {
			t.Fatalf("redis-sentinel exited:\n%s", p.out.String())
		}
		return alive(port)
	})
	return port
}

// TestInfoStatsFigures has the same conversation with go-sentinel and
// redis-sentinel 7.0.15 and checks that INFO's traffic figures move
// alike: byte counters exact to the byte, error replies, the
// instantaneous rates after a burst, the recent input buffer after a
// large query; and that INFO lists the same fields in the same order.
func TestInfoStatsFigures(t *testing.T) {
	needBinary(t, "redis-sentinel")
	type result struct {
		keys    []string
		in, out float64
		errs    float64
		ops     float64
		inKbps  float64
		maxIn   float64
		replies string
	}
	run := func(kind daemonKind) result {
		port := startBareSentinel(t, kind)
		c := resptest.Dial(t, fmt.Sprintf("127.0.0.1:%d", port))
		infoCmd := "*2\r\n$4\r\nINFO\r\n$3\r\nALL\r\n"
		c.Send(infoCmd)
		r1 := c.Reply()
		_, v1 := infoFields(r1)

		var sent, replies strings.Builder
		say := func(raw string) {
			c.Send(raw)
			sent.WriteString(raw)
			replies.WriteString(c.Reply())
		}
		for k := 0; k < 10; k++ {
			say("*1\r\n$4\r\nPING\r\n")
		}
		say("PING\r\n")                                            // inline
		say("*2\r\n$4\r\nPING\r\n$5\r\nhello\r\n")                 // bulk reply
		say("*1\r\n$7\r\nNOTACMD\r\n")                             // unknown command
		say("*2\r\n$8\r\nSENTINEL\r\n$6\r\nMASTER\r\n")            // wrong arity
		say("*3\r\n$8\r\nSENTINEL\r\n$6\r\nMASTER\r\n$1\r\nx\r\n") // no such master

		c.Send(infoCmd)
		r2 := c.Reply()
		keys, v2 := infoFields(r2)
		res := result{keys: keys, replies: replies.String()}
		res.in = infoNum(t, v2, "total_net_input_bytes") - infoNum(t, v1, "total_net_input_bytes")
		res.out = infoNum(t, v2, "total_net_output_bytes") - infoNum(t, v1, "total_net_output_bytes")
		res.errs = infoNum(t, v2, "total_error_replies") - infoNum(t, v1, "total_error_replies")
		if want := float64(sent.Len() + len(infoCmd)); res.in != want {
			t.Errorf("%s: total_net_input_bytes grew by %v, want %v", kind, res.in, want)
		}
		if want := float64(len(r1) + replies.Len()); res.out != want {
			t.Errorf("%s: total_net_output_bytes grew by %v, want %v", kind, res.out, want)
		}

		// A burst of 200 pipelined PINGs, then INFO within the 1.6 s the
		// instantaneous metrics span.
		c.Send(strings.Repeat("*1\r\n$4\r\nPING\r\n", 200))
		for k := 0; k < 200; k++ {
			c.Reply()
		}
		time.Sleep(300 * time.Millisecond) // let a 100 ms sample see it
		big := strings.Repeat("x", 30000)
		c.Send(fmt.Sprintf("*2\r\n$4\r\nPING\r\n$%d\r\n%s\r\n", len(big), big))
		c.Reply()
		c.Send(infoCmd)
		_, v3 := infoFields(c.Reply())
		res.ops = infoNum(t, v3, "instantaneous_ops_per_sec")
		res.inKbps = infoNum(t, v3, "instantaneous_input_kbps")
		res.maxIn = infoNum(t, v3, "client_recent_max_input_buffer")
		return res
	}
	g, r := run(goSentinel), run(redisSentinel)

	var gk []string
	for _, k := range g.keys {
		// go-sentinel's additions: go_version in INFO server, and
		// Valkey 9's sentinel_total_tilt in INFO sentinel
		// (docs/compatibility.md, "Known differences").
		if k != "go_version" && k != "sentinel_total_tilt" {
			gk = append(gk, k)
		}
	}
	if strings.Join(gk, " ") != strings.Join(r.keys, " ") {
		t.Errorf("INFO fields differ:\ngo-sentinel    %v\nredis-sentinel %v", gk, r.keys)
	}
	if g.replies != r.replies {
		t.Errorf("replies differ:\ngo-sentinel    %q\nredis-sentinel %q", g.replies, r.replies)
	}
	if g.errs != 3 || r.errs != 3 {
		t.Errorf("total_error_replies grew by %v (go-sentinel) and %v (redis-sentinel), want 3", g.errs, r.errs)
	}
	for _, x := range []struct {
		kind daemonKind
		res  result
	}{{goSentinel, g}, {redisSentinel, r}} {
		if x.res.ops <= 0 || x.res.inKbps <= 0 {
			t.Errorf("%s: after a burst instantaneous_ops_per_sec %v, instantaneous_input_kbps %v", x.kind, x.res.ops, x.res.inKbps)
		}
		if x.res.maxIn <= 0 {
			t.Errorf("%s: client_recent_max_input_buffer %v after a 30 kB query", x.kind, x.res.maxIn)
		}
	}
	// go-sentinel reports the largest recent query; redis-sentinel the
	// query buffer its allocator gave (20480 for a 30 kB query).
	if g.maxIn < 30000 {
		t.Errorf("go-sentinel: client_recent_max_input_buffer %v after a 30 kB query", g.maxIn)
	}
	t.Logf("after the burst: go-sentinel %v ops/s %v kbps in, max input buffer %v; redis-sentinel %v ops/s %v kbps in, max input buffer %v",
		g.ops, g.inKbps, g.maxIn, r.ops, r.inKbps, r.maxIn)
}
