package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
)

// shardMasters is the most masters one fixture process serves. With a
// replica each and three Sentinels holding two links to every instance,
// 1,000 masters are 14,000 descriptors in the fixture (2,000 listeners and
// 12,000 connections), below the 20,000 open files a machine may allow a
// process that cannot raise its hard limit (no CAP_SYS_RESOURCE); more
// masters are spread over several processes.
const shardMasters = 1000

// shardCmd is the hidden subcommand a fixture process runs.
const shardCmd = "fixture-shard"

// shardedBackend serves the masters from several fakeredis processes, each
// holding whole masters with their replicas (a failover stays inside one).
type shardedBackend struct {
	shards []*shardProc
	ms     []monitored
}

// shardProc is one fixture process: it prints its masters' ports, then
// kills its first k masters at each "kill k" line on its stdin, and ends
// at EOF.
type shardProc struct {
	cmd     *exec.Cmd
	in      io.WriteCloser
	masters int
}

// newShardedBackend starts nMasters masters with nReplicas replicas each,
// perShard masters per fixture process.
func newShardedBackend(nMasters, nReplicas, perShard int) (*shardedBackend, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	b := &shardedBackend{}
	for first := 0; first < nMasters; first += perShard {
		n := min(perShard, nMasters-first)
		cmd := exec.Command(self, shardCmd, strconv.Itoa(n), strconv.Itoa(nReplicas))
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		cmd.Stderr = os.Stderr
		in, err := cmd.StdinPipe()
		if err != nil {
			b.close()
			return nil, err
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			b.close()
			return nil, err
		}
		if err := cmd.Start(); err != nil {
			b.close()
			return nil, err
		}
		b.shards = append(b.shards, &shardProc{cmd: cmd, in: in, masters: n})
		sc := bufio.NewScanner(out)
		for k := range n {
			if !sc.Scan() {
				b.close()
				return nil, fmt.Errorf("fixture shard: %d of %d masters started", k, n)
			}
			p, err := strconv.Atoi(sc.Text())
			if err != nil {
				b.close()
				return nil, fmt.Errorf("fixture shard: %q is not a port", sc.Text())
			}
			b.ms = append(b.ms, monitored{name: fmt.Sprintf("m%d", first+k), port: p})
		}
	}
	return b, nil
}

func (b *shardedBackend) masters() []monitored { return b.ms }
func (b *shardedBackend) kind() string         { return "fake" }

// kill kills the first k masters, each shard its share, at once.
func (b *shardedBackend) kill(k int) {
	for _, s := range b.shards {
		n := min(k, s.masters)
		if n > 0 {
			fmt.Fprintf(s.in, "kill %d\n", n)
		}
		k -= n
	}
}

// pids are the fixture processes, whose CPU counts as the fixture's.
func (b *shardedBackend) pids() []int {
	var ps []int
	for _, s := range b.shards {
		ps = append(ps, s.cmd.Process.Pid)
	}
	return ps
}

func (b *shardedBackend) close() {
	for _, s := range b.shards {
		_ = s.in.Close()
		_ = s.cmd.Wait()
	}
}

// runShard is a fixture process: args are the number of masters and of
// replicas per master.
func runShard(args []string) error {
	if len(args) != 2 {
		return errors.New("usage: " + shardCmd + " MASTERS REPLICAS")
	}
	nm, err1 := strconv.Atoi(args[0])
	nr, err2 := strconv.Atoi(args[1])
	if err := errors.Join(err1, err2); err != nil {
		return err
	}
	be, err := newFakeBackend(nm, nr)
	if err != nil {
		return err
	}
	defer be.close()
	w := bufio.NewWriter(os.Stdout)
	for _, m := range be.masters() {
		fmt.Fprintln(w, m.port)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 2 && f[0] == "kill" {
			if k, err := strconv.Atoi(f[1]); err == nil && k >= 0 && k <= nm {
				be.kill(k)
			}
		}
	}
	return nil
}

// checkFileLimit refuses a run whose Sentinels would need more open files
// than this machine lets a process have: a Sentinel holds perInstance
// links to every master and replica (linksPerInstance), and neither
// daemon can raise its hard limit without CAP_SYS_RESOURCE.
func checkFileLimit(nMasters, nReplicas, perInstance int) error {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return nil
	}
	return fileLimitError(nMasters, nReplicas, perInstance, lim.Max)
}

// linksPerInstance is how many connections a Sentinel of im keeps to each
// master and replica: one for go-sentinel, whose pub/sub link rides the
// command link's RESP3 connection (the fixture and redis-server speak
// RESP3), unless -go-env asks it for two; two (commands, hellos) for
// redis-sentinel and for a baseline, which may predate the merge.
func linksPerInstance(im impl) int {
	if im.name == "go-sentinel" && !strings.Contains(*goEnv, "GO_SENTINEL_TWO_LINKS") {
		return 1
	}
	return 2
}

// fileLimitError is checkFileLimit's rule for a hard limit of hard open
// files: the links, plus 64 for peers' links both ways, clients and files.
func fileLimitError(nMasters, nReplicas, perInstance int, hard uint64) error {
	per := uint64(perInstance * (1 + nReplicas))
	need := uint64(nMasters)*per + 64
	if need <= hard {
		return nil
	}
	fit := uint64(0)
	if hard > 64 {
		fit = (hard - 64) / per
	}
	return fmt.Errorf("%d masters with %d replica(s) need about %d open files per Sentinel (%d link(s) per instance), "+
		"beyond this machine's hard limit of %d (raising it needs CAP_SYS_RESOURCE): run at most %d masters here",
		nMasters, nReplicas, need, perInstance, hard, fit)
}

// sampleFixtureCPU is the CPU time of this process and of be's fixture
// processes together.
func sampleFixtureCPU(be backend) (cpuSample, error) {
	total, err := sampleCPU(os.Getpid())
	if err != nil {
		return total, err
	}
	if sb, ok := be.(*shardedBackend); ok {
		for _, p := range sb.pids() {
			c, err := sampleCPU(p)
			if err != nil {
				return total, err
			}
			total.cpu += c.cpu
		}
	}
	return total, nil
}
