package main

import (
	"fmt"
	"os"
	"time"

	"github.com/go-sentinel/go-sentinel/bench/fakeredis"
)

// backend is the set of monitored masters and their replicas of one run.
type backend interface {
	// masters lists the masters, named m0, m1, ...
	masters() []monitored
	// kill kills the first k masters at once.
	kill(k int)
	// close ends every instance.
	close()
	// kind is "redis-server" or "fake".
	kind() string
}

// realBackend runs every instance as a redis-server process.
type realBackend struct {
	dir      string
	ms       []monitored
	servers  []*redisServer // masters first
	nMasters int
}

func newRealBackend(nMasters, nReplicas int) (*realBackend, error) {
	dir, err := os.MkdirTemp("", "bench-redis-")
	if err != nil {
		return nil, err
	}
	b := &realBackend{dir: dir, nMasters: nMasters}
	ports, err := freePorts(nMasters * (1 + nReplicas))
	if err != nil {
		b.close()
		return nil, err
	}
	var replicaPorts []int
	for k := range nMasters {
		s, err := startRedis(dir, ports[k], 0)
		if err != nil {
			b.close()
			return nil, err
		}
		b.servers = append(b.servers, s)
		b.ms = append(b.ms, monitored{name: fmt.Sprintf("m%d", k), port: ports[k]})
	}
	for k := range nMasters * nReplicas {
		p := ports[nMasters+k]
		s, err := startRedis(dir, p, ports[k%nMasters])
		if err != nil {
			b.close()
			return nil, err
		}
		b.servers = append(b.servers, s)
		replicaPorts = append(replicaPorts, p)
	}
	if err := waitReplicasUp(replicaPorts, 120*time.Second); err != nil {
		b.close()
		return nil, err
	}
	return b, nil
}

func (b *realBackend) masters() []monitored { return b.ms }
func (b *realBackend) kind() string         { return "redis-server" }

func (b *realBackend) kill(k int) {
	for _, s := range b.servers[:k] {
		s.kill()
	}
}

func (b *realBackend) close() {
	for _, s := range b.servers {
		s.kill()
	}
	removeAll(b.dir)
}

// fakeBackend serves every instance from a fakeredis.Fleet in this process.
type fakeBackend struct {
	fleet *fakeredis.Fleet
	ms    []monitored
	insts []*fakeredis.Instance // the masters
}

func newFakeBackend(nMasters, nReplicas int) (*fakeBackend, error) {
	b := &fakeBackend{fleet: fakeredis.NewFleet("127.0.0.1")}
	for k := range nMasters {
		m, err := b.fleet.AddMaster()
		if err != nil {
			b.close()
			return nil, err
		}
		for range nReplicas {
			if _, err := b.fleet.AddReplica(m); err != nil {
				b.close()
				return nil, err
			}
		}
		b.insts = append(b.insts, m)
		b.ms = append(b.ms, monitored{name: fmt.Sprintf("m%d", k), port: m.Port()})
	}
	return b, nil
}

func (b *fakeBackend) masters() []monitored { return b.ms }
func (b *fakeBackend) kind() string         { return "fake" }

func (b *fakeBackend) kill(k int) {
	for _, m := range b.insts[:k] {
		b.fleet.Kill(m)
	}
}

func (b *fakeBackend) close() { b.fleet.Close() }
