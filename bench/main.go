// Command bench measures go-sentinel beside Debian's redis-sentinel (when
// installed) on this machine and prints Markdown tables, each figure next to
// its goal (issue 10):
//
//	go run ./bench failover     # kill → +switch-master, write gap (A/B)
//	go run ./bench scale        # 10/100/1,000 masters: CPU, RSS, discovery, K deaths
//	go run ./bench throughput   # redis-benchmark of GET-MASTER-ADDR-BY-NAME and PING (and PING over TLS)
//	go run ./bench idle         # resident memory per idle client connection (10,000 by default)
//	go run ./bench all
//
// Flags follow the subcommand (go run ./bench scale -masters 100 -kills 10).
// Progress goes to stderr, results to stdout.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

var (
	goBin       = flag.String("go-sentinel", "bin/go-sentinel", "go-sentinel binary")
	redisBin    = flag.String("redis-sentinel", "", "redis-sentinel binary (default: from PATH; \"none\" skips it)")
	baseBin     = flag.String("baseline", "", "a second go-sentinel binary (e.g. built from main) measured in the same run")
	baseName    = flag.String("baseline-name", "baseline", "what the baseline's column is called: \"go-sentinel (NAME)\"")
	keepDirs    = flag.Bool("keep", false, "keep the work directories (configs, logs)")
	redisHz     = flag.Int("redis-hz", 10, "hz of the redis-server processes")
	settle      = flag.Duration("settle", time.Second, "pause between discovery and the measurement")
	trials      = flag.Int("n", 5, "failover: kills per implementation")
	mixedFlag   = flag.String("mixed", "", "failover: also measure mixed fleets, each given as its number of redis-sentinels among the 3 (e.g. 1,2)")
	downAfter   = flag.Duration("down-after", 0, "down-after-milliseconds (default 1s for failover, 5s for scale)")
	mastersFlag = flag.String("masters", "10,100,1000", "scale: numbers of masters")
	killsFlag   = flag.String("kills", "10,100", "scale: numbers of simultaneous master deaths (each on a fresh fleet)")
	replicas    = flag.Int("replicas", 1, "scale: replicas per master")
	realMax     = flag.Int("real-max", 100, "scale: most masters run as redis-server processes; above, the fake fixture")
	idle        = flag.Duration("idle", 20*time.Second, "scale: window over which idle CPU is measured")
	discWait    = flag.Duration("disc-wait", 300*time.Second, "scale: how long discovery may take (the run goes on after it)")
	failWait    = flag.Duration("fail-wait", 120*time.Second, "scale: how long K deaths may take beyond down-after")
	pprofDir    = flag.String("pprof-dir", "", "scale: save go-sentinel heap and CPU profiles of the idle window here")
	goEnv       = flag.String("go-env", "", "extra environment for go-sentinel, comma-separated KEY=VALUE (e.g. GOGC=50,GOMAXPROCS=1)")
	requests    = flag.Int("requests", 200000, "throughput: redis-benchmark -n")
	conns       = flag.Int("clients", 50, "throughput: redis-benchmark -c")
	rounds      = flag.Int("rounds", 3, "throughput: rounds per implementation")
	tlsBench    = flag.Bool("tls", true, "throughput: also PING over each Sentinel's tls-port (redis-benchmark --tls)")
	idleClients = flag.Int("idle-clients", 10000, "idle: client connections")
	idleHold    = flag.Duration("idle-hold", 60*time.Second, "idle: how long the connections stay idle after the 3 s sample")
	idlePing    = flag.Bool("idle-ping", false, "idle: each connection sends one PING before it idles")
)

func main() {
	if len(os.Args) < 2 || strings.HasPrefix(os.Args[1], "-") {
		fmt.Fprintln(os.Stderr, "usage: bench failover|scale|throughput|idle|proxy|proxy-replicas|all [flags]")
		flag.PrintDefaults()
		os.Exit(2)
	}
	sub := os.Args[1]
	if sub == shardCmd {
		if err := runShard(os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, "bench: "+shardCmd+":", err)
			os.Exit(1)
		}
		return
	}
	if err := flag.CommandLine.Parse(os.Args[2:]); err != nil {
		os.Exit(2)
	}
	redis.SetLogger(quietLogger{})
	impls, err := implementations()
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
	out := os.Stdout
	describeMachine(out, impls)
	da := func(def time.Duration) time.Duration {
		if *downAfter > 0 {
			return *downAfter
		}
		return def
	}
	switch sub {
	case "failover":
		runFailover(out, impls, *trials, da(time.Second))
	case "scale":
		runScale(out, impls, ints(*mastersFlag), ints(*killsFlag), da(5*time.Second))
	case "throughput":
		runThroughput(out, impls)
	case "idle":
		runIdle(out, impls)
	case "proxy":
		// proxy-fence-after (2 s by default) must stay above the 1 s
		// PING period and below down-after.
		runProxy(out, *trials, da(5*time.Second))
	case "proxy-replicas":
		runProxyReplicas(out, *trials)
	case "all":
		runFailover(out, impls, *trials, da(time.Second))
		runScale(out, impls, ints(*mastersFlag), ints(*killsFlag), da(5*time.Second))
		runThroughput(out, impls)
		runIdle(out, impls)
	default:
		fmt.Fprintf(os.Stderr, "bench: unknown benchmark %q\n", sub)
		os.Exit(2)
	}
}

// hasRedis tells whether redis-sentinel is measured; it is then the second
// implementation, which ratios and relative goals compare go-sentinel with.
var hasRedis bool

// implementations returns go-sentinel, redis-sentinel when found and the
// baseline when given, in that order.
func implementations() ([]impl, error) {
	if _, err := os.Stat(*goBin); err != nil {
		return nil, fmt.Errorf("go-sentinel binary: %w (run make build)", err)
	}
	impls := []impl{{name: "go-sentinel", bin: *goBin}}
	rb := *redisBin
	if rb == "" {
		rb, _ = exec.LookPath("redis-sentinel")
	}
	if rb != "" && rb != "none" {
		impls = append(impls, impl{name: "redis-sentinel", bin: rb})
		hasRedis = true
	} else {
		fmt.Fprintln(os.Stderr, "bench: redis-sentinel not found, measuring without it")
	}
	if *baseBin != "" {
		if _, err := os.Stat(*baseBin); err != nil {
			return nil, fmt.Errorf("baseline binary: %w", err)
		}
		impls = append(impls, impl{name: "go-sentinel (" + *baseName + ")", bin: *baseBin})
	}
	return impls, nil
}

// ints parses a comma-separated list of positive integers.
func ints(s string) []int {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			fmt.Fprintf(os.Stderr, "bench: bad number %q in %q\n", f, s)
			os.Exit(2)
		}
		out = append(out, n)
	}
	return out
}

// quietLogger drops go-redis's own log lines (reconnect chatter).
type quietLogger struct{}

func (quietLogger) Printf(context.Context, string, ...any) {}
