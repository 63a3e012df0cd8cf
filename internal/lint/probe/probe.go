// Package probe gathers the live facts the lint rules need: it asks the
// Sentinels given on the command line about every master of a
// configuration (SENTINEL MASTER, GET-MASTER-ADDR-BY-NAME, SENTINELS,
// REPLICAS, CKQUORUM), then queries the master and replicas they report
// (INFO, CONFIG GET min-replicas-*, PING round trips, and ACL DRYRUN of
// the commands a failover sends them) and the Sentinels (INFO server,
// which tells go-sentinel from redis-sentinel). It only reads: no command it sends
// changes anything, and DRYRUN runs none of the commands it is asked about.
package probe

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"

	"github.com/go-sentinel/go-sentinel/internal/config"
	"github.com/go-sentinel/go-sentinel/internal/lint"
	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// Options tune Gather.
type Options struct {
	// Timeout bounds each connection attempt and each command; 0 means
	// DefaultTimeout.
	Timeout time.Duration
	// Pings is how many PING round trips are timed per instance; 0 means
	// DefaultPings.
	Pings int
	// TLS, when not nil, is used for every connection (the Sentinel's
	// tls-replication setting).
	TLS *tls.Config
}

// The defaults of Options.
const (
	DefaultTimeout = 2 * time.Second
	DefaultPings   = 5
)

// Gather asks each Sentinel address ("host:port") about every master of
// cfg and the instances they report. It never fails: what could not be
// learned is recorded as an error string in the facts. Credentials come
// from cfg as a Sentinel uses them: sentinel-user/sentinel-pass (or
// requirepass) towards Sentinels, each master's auth-user/auth-pass and
// rename-command towards its master and replicas.
func Gather(ctx context.Context, cfg *config.Config, sentinels []string, opts Options) *lint.Facts {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.Pings <= 0 {
		opts.Pings = DefaultPings
	}
	p := &prober{opts: opts, peers: map[string]string{}}
	user, pass := "", cfg.Server.Requirepass
	if cfg.Sentinel.SentinelPass != "" {
		user, pass = cfg.Sentinel.SentinelUser, cfg.Sentinel.SentinelPass
	}
	facts := &lint.Facts{Masters: map[string]lint.MasterFacts{}, Impls: map[string]lint.Impl{}}
	var implMu sync.Mutex
	setImpl := func(id string, c *redis.Client) {
		if impl := sentinelImpl(ctx, c); impl != lint.ImplUnknown {
			implMu.Lock()
			facts.Impls[strings.ToLower(id)] = impl
			implMu.Unlock()
		}
	}
	clients := make([]*redis.Client, len(sentinels))
	facts.Sentinels = make([]lint.SentinelFacts, len(sentinels))
	parallel(len(sentinels), func(i int) {
		c := p.client(sentinels[i], user, pass)
		s := lint.SentinelFacts{Addr: sentinels[i]}
		id, err := c.Do(ctx, "SENTINEL", "MYID").Text()
		if err != nil {
			s.Err = errText(err)
			c.Close()
		} else {
			s.ID, clients[i] = id, c
			setImpl(id, c)
		}
		facts.Sentinels[i] = s
	})
	defer func() {
		for _, c := range clients {
			if c != nil {
				c.Close()
			}
		}
	}()
	for _, m := range cfg.Sentinel.Masters {
		mf, asked := p.master(ctx, m, facts.Sentinels, clients)
		if asked {
			facts.Masters[m.Name] = mf
		}
	}
	// The Sentinels the given ones list, once each.
	var ids []string
	for id := range p.peers {
		if _, ok := facts.Impls[strings.ToLower(id)]; !ok {
			ids = append(ids, id)
		}
	}
	parallel(len(ids), func(i int) {
		c := p.client(p.peers[ids[i]], user, pass)
		defer c.Close()
		setImpl(ids[i], c)
	})
	return facts
}

// sentinelImpl asks a Sentinel for INFO server and tells what it runs;
// ImplUnknown when it does not answer.
func sentinelImpl(ctx context.Context, c *redis.Client) lint.Impl {
	text, err := c.Do(ctx, "INFO", "server").Text()
	if err != nil {
		return lint.ImplUnknown
	}
	return lint.ImplOfInfo(parseInfo(text))
}

// Quiet silences go-redis's package-wide logger, which would print every
// failed dial on stderr: Gather reports them as facts. It changes global
// state, so only a command-line program should call it, once.
func Quiet() { redis.SetLogger(quietLogger{}) }

type quietLogger struct{}

func (quietLogger) Printf(context.Context, string, ...any) {}

// prober holds the options of one Gather and the Sentinels the given
// ones list.
type prober struct {
	opts Options
	// peers maps the run id of every Sentinel a SENTINEL SENTINELS reply
	// listed to its address ("host:port").
	peers map[string]string
}

// client returns a RESP2 client that sends nothing on connect but HELLO
// (with the credentials) and never retries.
func (p *prober) client(addr, user, pass string) *redis.Client {
	return redis.NewClient(&redis.Options{
		Addr:                     addr,
		Username:                 user,
		Password:                 pass,
		Protocol:                 2,
		DisableIdentity:          true,
		MaxRetries:               -1,
		DialTimeout:              p.opts.Timeout,
		DialerRetries:            1,
		ReadTimeout:              p.opts.Timeout,
		WriteTimeout:             p.opts.Timeout,
		PoolSize:                 1,
		TLSConfig:                p.opts.TLS,
		MaintNotificationsConfig: &maintnotifications.Config{Mode: maintnotifications.ModeDisabled},
	})
}

// master asks every reachable Sentinel about m, then probes the instances.
// asked is false when no Sentinel could be asked.
func (p *prober) master(ctx context.Context, m settings.MasterSpec, ss []lint.SentinelFacts, clients []*redis.Client) (mf lint.MasterFacts, asked bool) {
	replicaPrio := map[string]int{}
	var replicaOrder []string
	addReplica := func(addr string) {
		if _, ok := replicaPrio[addr]; !ok {
			replicaPrio[addr] = -1
			replicaOrder = append(replicaOrder, addr)
		}
	}
	votes := map[string]int{}
	for i, c := range clients {
		if c == nil {
			continue
		}
		asked = true
		v, replicas, err := p.view(ctx, c, m.Name)
		if err != nil {
			ss[i].Err = errText(err)
			continue
		}
		v.Sentinel, v.ID = ss[i].Addr, ss[i].ID
		mf.Views = append(mf.Views, v)
		if v.Monitors {
			votes[v.MasterAddr]++
		}
		for _, r := range replicas {
			addReplica(r.addr)
			if r.priority >= 0 {
				replicaPrio[r.addr] = r.priority
			}
		}
	}
	if !asked {
		return mf, false
	}
	masterAddr := m.Addr.String()
	best := 0
	for a, n := range votes {
		if n > best || (n == best && a < masterAddr) {
			masterAddr, best = a, n
		}
	}
	renames := map[string]string{}
	for _, r := range m.RenameCommands {
		renames[strings.ToUpper(r.Command)] = r.Renamed
	}
	in := &instanceProber{prober: p, spec: m, user: m.AuthUser, pass: m.AuthPass, renames: renames}
	master := in.probe(ctx, masterAddr, true)
	mf.Master = master.Instance
	for _, a := range master.replicaAddrs {
		addReplica(a)
	}
	var addrs []string
	for _, a := range replicaOrder {
		if a != masterAddr {
			addrs = append(addrs, a)
		}
	}
	mf.Replicas = make([]lint.Instance, len(addrs))
	parallel(len(addrs), func(i int) {
		r := in.probe(ctx, addrs[i], false)
		if !r.PriorityKnown && replicaPrio[addrs[i]] >= 0 {
			// The replica did not answer: use what the Sentinels saw.
			r.PriorityKnown, r.Priority = true, replicaPrio[addrs[i]]
		}
		mf.Replicas[i] = r.Instance
	})
	return mf, true
}

// reportedReplica is one entry of SENTINEL REPLICAS.
type reportedReplica struct {
	addr     string
	priority int // -1 when not reported
}

// view asks one Sentinel about one master. A Sentinel that does not know
// the master gives a view with Monitors false; err is a failure to ask.
func (p *prober) view(ctx context.Context, c *redis.Client, name string) (lint.SentinelView, []reportedReplica, error) {
	var v lint.SentinelView
	fields, err := c.Do(ctx, "SENTINEL", "MASTER", name).Slice()
	if err != nil {
		if isRedisErr(err) && strings.Contains(err.Error(), "No such master") {
			return v, nil, nil
		}
		return v, nil, err
	}
	v.Monitors = true
	v.Quorum, _ = strconv.Atoi(pairs(fields)["quorum"])
	addr, err := c.Do(ctx, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", name).StringSlice()
	if err != nil {
		return v, nil, err
	}
	if len(addr) == 2 {
		v.MasterAddr = net.JoinHostPort(addr[0], addr[1])
	}
	others, err := c.Do(ctx, "SENTINEL", "SENTINELS", name).Slice()
	if err != nil {
		return v, nil, err
	}
	for _, o := range others {
		if f, ok := o.([]any); ok {
			kv := pairs(f)
			v.Others = append(v.Others, kv["runid"])
			if kv["runid"] != "" && kv["ip"] != "" && kv["port"] != "" {
				p.peers[kv["runid"]] = net.JoinHostPort(kv["ip"], kv["port"])
			}
		}
	}
	reps, err := c.Do(ctx, "SENTINEL", "REPLICAS", name).Slice()
	if err != nil {
		return v, nil, err
	}
	var replicas []reportedReplica
	for _, r := range reps {
		f, ok := r.([]any)
		if !ok {
			continue
		}
		kv := pairs(f)
		rr := reportedReplica{addr: net.JoinHostPort(kv["ip"], kv["port"]), priority: -1}
		if n, err := strconv.Atoi(kv["slave-priority"]); err == nil {
			rr.priority = n
		}
		replicas = append(replicas, rr)
	}
	// A lease of length 0 is refused and changes nothing; a Sentinel
	// that knows no SENTINEL LEASE (redis-sentinel) says so instead.
	if err := c.Do(ctx, "SENTINEL", "LEASE", "check", "0", "0.0.0.0", "0", "0").Err(); err != nil &&
		isRedisErr(err) && strings.Contains(strings.ToLower(err.Error()), "unknown subcommand") {
		v.NoLease = true
	}
	ck, err := c.Do(ctx, "SENTINEL", "CKQUORUM", name).Text()
	switch {
	case err == nil:
		v.CKQuorum, v.CKQuorumOK = ck, true
	case isRedisErr(err):
		v.CKQuorum = err.Error()
	default:
		return v, nil, err
	}
	return v, replicas, nil
}

// pairs turns a flat RESP2 map reply into a map of strings.
func pairs(flat []any) map[string]string {
	m := make(map[string]string, len(flat)/2)
	for i := 0; i+1 < len(flat); i += 2 {
		m[fmt.Sprint(flat[i])] = fmt.Sprint(flat[i+1])
	}
	return m
}

// isRedisErr reports whether err is an error reply (not a network error).
func isRedisErr(err error) bool {
	var re redis.Error
	return errors.As(err, &re) && !errors.Is(err, redis.Nil)
}

// errText is a short description of err for a finding.
func errText(err error) string {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return "timed out"
	}
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Err != nil {
		return oe.Err.Error()
	}
	return err.Error()
}

// parallel runs f(0..n-1) concurrently and waits for all.
func parallel(n int, f func(i int)) {
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(i)
		}()
	}
	wg.Wait()
}
