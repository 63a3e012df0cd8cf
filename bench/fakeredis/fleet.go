// Package fakeredis serves many fake Redis instances from one process, for
// benchmarks that need more masters and replicas than the machine can run as
// redis-server processes.
//
// A fake instance behaves enough like a Redis 7.0 master or replica for a
// Sentinel to monitor it and fail it over: PING, INFO (the Server and
// Replication sections in Redis's format, with run_id, role, slaveN lines,
// master_host, master_link_status, ...), ROLE, SUBSCRIBE/PUBLISH with fan-out
// (a PUBLISH on a master also reaches the subscribers of its replicas, as
// replication does), AUTH, CLIENT SETNAME/KILL, MULTI/EXEC/DISCARD, SLAVEOF
// (REPLICAOF) and CONFIG REWRITE. SLAVEOF NO ONE promotes a replica;
// SLAVEOF host port makes an instance a replica of whatever listens there,
// and its link is up while that is a live master of the same Fleet. There is
// no data: replication offsets grow with the clock.
package fakeredis

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"slices"
	"strconv"
	"sync"
	"time"
)

// Fleet is a set of fake instances that know each other by address.
type Fleet struct {
	host    string
	started time.Time

	mu       sync.Mutex
	insts    map[string]*Instance              // by host:port, live or killed
	replicas map[string]map[*Instance]struct{} // by the master address they follow
}

// NewFleet returns an empty fleet whose instances listen on host (an IP
// address, e.g. "127.0.0.1").
func NewFleet(host string) *Fleet {
	return &Fleet{
		host:     host,
		started:  time.Now(),
		insts:    make(map[string]*Instance),
		replicas: make(map[string]map[*Instance]struct{}),
	}
}

// AddMaster starts a master on a free port.
func (f *Fleet) AddMaster() (*Instance, error) {
	return f.add("")
}

// AddReplica starts a replica of master on a free port.
func (f *Fleet) AddReplica(master *Instance) (*Instance, error) {
	return f.add(master.Addr())
}

func (f *Fleet) add(master string) (*Instance, error) {
	ln, err := net.Listen("tcp", net.JoinHostPort(f.host, "0"))
	if err != nil {
		return nil, fmt.Errorf("fakeredis: listen: %w", err)
	}
	inst := &Instance{
		fleet:   f,
		host:    f.host,
		port:    ln.Addr().(*net.TCPAddr).Port,
		runID:   randomID(),
		replID:  randomID(),
		ln:      ln,
		alive:   true,
		clients: make(map[*client]struct{}),
		subs:    make(map[string]map[*client]struct{}),
	}
	f.mu.Lock()
	f.insts[inst.Addr()] = inst
	f.follow(inst, master)
	f.mu.Unlock()
	go inst.serve()
	return inst, nil
}

// Kill makes inst die as a SIGKILLed redis-server would: its listener and
// every connection to it are closed at once. A killed instance stays dead.
func (f *Fleet) Kill(inst *Instance) {
	f.mu.Lock()
	if !inst.alive {
		f.mu.Unlock()
		return
	}
	inst.alive = false
	inst.diedAt = time.Now()
	clients := make([]*client, 0, len(inst.clients))
	for c := range inst.clients {
		clients = append(clients, c)
	}
	inst.clients = make(map[*client]struct{})
	inst.subs = make(map[string]map[*client]struct{})
	f.mu.Unlock()
	_ = inst.ln.Close()
	for _, c := range clients {
		_ = c.nc.Close()
	}
}

// Close kills every instance of the fleet.
func (f *Fleet) Close() {
	f.mu.Lock()
	all := make([]*Instance, 0, len(f.insts))
	for _, i := range f.insts {
		all = append(all, i)
	}
	f.mu.Unlock()
	for _, i := range all {
		f.Kill(i)
	}
}

// Lookup returns the instance at host:port, live or killed.
func (f *Fleet) Lookup(addr string) (*Instance, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	i, ok := f.insts[addr]
	return i, ok
}

// offset is the replication offset every instance reports: it grows with
// the clock, so all instances are equally up to date.
func (f *Fleet) offset() int64 {
	return time.Since(f.started).Milliseconds() * 16
}

// liveMaster returns the instance at addr if it is alive and a master.
// The caller holds f.mu.
func (f *Fleet) liveMaster(addr string) *Instance {
	m := f.insts[addr]
	if m == nil || !m.alive || m.master != "" {
		return nil
	}
	return m
}

// follow makes inst a replica of the instance at master, or a master when
// master is "". The caller holds f.mu.
func (f *Fleet) follow(inst *Instance, master string) {
	if inst.master != "" {
		delete(f.replicas[inst.master], inst)
	}
	inst.master = master
	if master == "" {
		return
	}
	set := f.replicas[master]
	if set == nil {
		set = make(map[*Instance]struct{})
		f.replicas[master] = set
	}
	set[inst] = struct{}{}
}

// replicasOf returns the live instances replicating from m, in port order.
// The caller holds f.mu.
func (f *Fleet) replicasOf(m *Instance) []*Instance {
	var out []*Instance
	for i := range f.replicas[m.Addr()] {
		if i.alive {
			out = append(out, i)
		}
	}
	slices.SortFunc(out, func(a, b *Instance) int { return a.port - b.port })
	return out
}

// randomID is a 40-character hex id, the form of a Redis run id.
func randomID() string {
	var b [20]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func joinHostPort(host string, port int) string {
	return net.JoinHostPort(host, strconv.Itoa(port))
}
