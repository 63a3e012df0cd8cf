package sim_test

// The reads and the argument parsing of the fleet transcripts
// (fleet_transcript_test.go).

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/event"
	"github.com/go-sentinel/go-sentinel/internal/settings"
	"github.com/go-sentinel/go-sentinel/internal/sim"
	"github.com/go-sentinel/go-sentinel/internal/view"
)

// masters is the masters and master commands.
func (f *fleet) masters(line, cmd string, args []string) []string {
	c := f.c
	nodes := c.Nodes()
	name := ""
	if cmd == "master" {
		f.want(line, args, 2)
		if args[0] != "*" {
			nodes = []*sim.Node{f.node(args[0])}
		}
		name = args[1]
	} else if len(args) > 0 {
		nodes = nil
		for _, a := range args {
			nodes = append(nodes, f.node(a))
		}
	}
	var out []string
	for _, n := range nodes {
		if n.Crashed() {
			out = append(out, n.Name+": crashed")
			continue
		}
		names := n.Core.View().MasterNames()
		if name != "" {
			names = []string{name}
		}
		if len(names) == 0 {
			out = append(out, n.Name+": no masters")
		}
		for _, m := range names {
			a, ok := n.Core.View().MasterAddr(m)
			if !ok {
				out = append(out, fmt.Sprintf("%s: %s (nil)", n.Name, m))
				continue
			}
			out = append(out, fmt.Sprintf("%s: %s %s", n.Name, m, f.addrName(a)))
		}
	}
	return out
}

// instances is the replicas and sentinels commands.
func (f *fleet) instances(cmd string, n *sim.Node, master string) []string {
	now := n.Now()
	var list [][]view.KV
	var err error
	if cmd == "replicas" {
		list, err = n.Core.View().Replicas(now, master)
	} else {
		list, err = n.Core.View().Sentinels(now, master)
	}
	if err != nil {
		return []string{"(error) " + err.Error()}
	}
	if len(list) == 0 {
		return []string{"(empty)"}
	}
	ids := f.ids()
	var out []string
	for _, kv := range list {
		port, _ := strconv.Atoi(sim.Field(kv, "port"))
		a := f.addrName(settings.Addr{Host: sim.Field(kv, "ip"), Port: port})
		if cmd == "sentinels" {
			a = ids.Replace(sim.Field(kv, "runid")) + " " + a
		}
		out = append(out, a+" "+sim.Field(kv, "flags"))
	}
	return out
}

// explain is the explain command.
func (f *fleet) explain(n *sim.Node, master string, full bool) []string {
	e, err := n.Core.Explain(n.Now(), master)
	if err != nil {
		return []string{"(error) " + err.Error()}
	}
	ids := f.ids()
	var out []string
	for k, l := range strings.Split(strings.TrimRight(e.Text(), "\n"), "\n") {
		if full || k == 0 || strings.HasPrefix(l, "  why: ") || strings.HasPrefix(l, "election: ") || strings.HasPrefix(l, "failover: ") {
			out = append(out, ids.Replace(l))
		}
	}
	return out
}

// servers renders each server's role.
func (f *fleet) servers() []string {
	var out []string
	for _, s := range f.c.Servers() {
		l := fmt.Sprintf("%s %s %s:%d", s.Name, s.Role, s.Addr.Host, s.Addr.Port)
		if s.Role == sim.RoleReplica {
			l += " of " + f.addrName(s.MasterAddr)
		}
		if s.Crashed() {
			l += " (crashed)"
		}
		out = append(out, l)
	}
	return out
}

// proxies renders where each Sentinel's proxy of the fleet master
// forwards (the server's name), or that it is fenced and why; a crashed
// Sentinel's proxy is down.
func (f *fleet) proxies() []string {
	var out []string
	for _, n := range f.c.Nodes() {
		if n.Crashed() {
			out = append(out, n.Name+": crashed")
			continue
		}
		rt, ok := n.Core.View().ProxyRoute(f.master)
		switch {
		case !ok:
			out = append(out, n.Name+": no proxy")
		case rt.Fenced:
			out = append(out, n.Name+": fenced ("+rt.Reason+")")
		case !rt.Forwards(n.Now()):
			out = append(out, n.Name+": fenced ("+view.LeasesLapsed+")")
		default:
			out = append(out, n.Name+": forwards to "+f.addrName(rt.Addr))
		}
	}
	return out
}

// epochs renders each Sentinel's current epoch and its masters' config
// epochs; a crashed Sentinel's come from its disk.
func (f *fleet) epochs() []string {
	var out []string
	for _, n := range f.c.Nodes() {
		if n.Crashed() {
			l := fmt.Sprintf("%s: crashed; disk: current-epoch %d", n.Name, n.Disk.CurrentEpoch)
			for _, m := range n.Disk.Masters {
				l += fmt.Sprintf(", %s config-epoch %d", m.Name, m.ConfigEpoch)
			}
			out = append(out, l)
			continue
		}
		l := fmt.Sprintf("%s: current-epoch %d", n.Name, n.Core.CurrentEpoch())
		for _, m := range n.Core.View().MasterNames() {
			kv, _ := n.Core.View().Master(n.Now(), m)
			l += fmt.Sprintf(", %s config-epoch %s", m, sim.Field(kv, "config-epoch"))
		}
		out = append(out, l)
	}
	return out
}

// ids replaces every Sentinel's run id, and its 8-character short form
// (SENTINEL EXPLAIN's), by its node name.
func (f *fleet) ids() *strings.Replacer {
	var full, short []string
	for _, n := range f.c.Nodes() {
		id := n.Core.MyID()
		full = append(full, id, n.Name)
		short = append(short, id[:8], n.Name)
	}
	return strings.NewReplacer(append(full, short...)...)
}

// addrName renders an address with the name of the server or Sentinel
// listening there, if any.
func (f *fleet) addrName(a settings.Addr) string {
	s := fmt.Sprintf("%s:%d", a.Host, a.Port)
	for _, srv := range f.c.Servers() {
		if srv.Addr == a {
			return s + " (" + srv.Name + ")"
		}
	}
	for _, n := range f.c.Nodes() {
		if n.Addr() == a {
			return s + " (" + n.Name + ")"
		}
	}
	return s
}

// offset renders a cluster time as its offset from the fleet command.
func (f *fleet) offset(at time.Time) string {
	d := at.Sub(f.c.Now().Add(-f.c.Elapsed()))
	return fmt.Sprintf("+%d.%03ds", int64(d/time.Second), int64(d%time.Second/time.Millisecond))
}

// endpoint resolves a node or server name, `leader`, `crashed` or
// `master`.
func (f *fleet) endpoint(name string) string {
	switch name {
	case "leader", "crashed":
		return f.node(name).Name
	case "master":
		return f.server(name).Name
	}
	if f.c.Node(name) == nil && f.c.Server(name) == nil {
		f.fatalf("unknown node or server %q", name)
	}
	return name
}

// node resolves a Sentinel name, `leader` or `crashed`.
func (f *fleet) node(name string) *sim.Node {
	if name == "crashed" {
		for _, n := range f.c.Nodes() {
			if n.Crashed() {
				return n
			}
		}
		f.fatalf("crashed: no Sentinel is down")
	}
	if name == "leader" {
		el := f.c.EventsOf("", event.ElectedLeader)
		if len(el) == 0 {
			f.fatalf("leader: no Sentinel was elected yet")
		}
		name = el[len(el)-1].Node
	}
	n := f.c.Node(name)
	if n == nil {
		f.fatalf("unknown Sentinel %q", name)
	}
	return n
}

// server resolves a server name or `master`.
func (f *fleet) server(name string) *sim.Server {
	if name == "master" {
		for _, s := range f.c.Servers() {
			if !s.Crashed() && s.Role == sim.RoleMaster {
				return s
			}
		}
		f.fatalf("master: no master is running")
	}
	s := f.c.Server(name)
	if s == nil {
		f.fatalf("unknown server %q", name)
	}
	return s
}

// group resolves a comma- or space-separated list of endpoints.
func (f *fleet) group(s string) []string {
	var out []string
	for _, name := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' }) {
		out = append(out, f.endpoint(name))
	}
	if len(out) == 0 {
		f.fatalf("empty group in %q", s)
	}
	return out
}

func (f *fleet) want(line string, args []string, n int) {
	if len(args) != n {
		f.fatalf("%s: want %d arguments", line, n)
	}
}

func (f *fleet) num(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		f.fatalf("not a number: %q", s)
	}
	return n
}

func (f *fleet) duration(s string) time.Duration {
	d, err := time.ParseDuration(s)
	if err != nil {
		f.fatalf("not a duration: %q", s)
	}
	return d
}

func (f *fleet) addr(s string) settings.Addr {
	i := strings.LastIndexByte(s, ':')
	if i < 0 {
		f.fatalf("not an address: %q", s)
	}
	return settings.Addr{Host: s[:i], Port: f.num(s[i+1:])}
}

// matchType reports whether typ is one of patterns (a trailing * matches
// a prefix).
func matchType(patterns []string, typ event.Type) bool {
	for _, p := range patterns {
		if p == string(typ) || (strings.HasSuffix(p, "*") && strings.HasPrefix(string(typ), strings.TrimSuffix(p, "*"))) {
			return true
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
