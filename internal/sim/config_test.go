package sim

import (
	"math/rand"
	"strconv"
	"testing"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/monitor"
	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// switchedCluster builds the world after a failover two Sentinels missed:
// r1 is the master, r0 and r2 replicate from it; s1 and s2 are configured
// with the old master r0 (config epoch 0) and know its former replicas;
// s3 restarts from a persisted
// state that has config epoch 5 naming r1 (and the extra replicas, given).
func switchedCluster(t *testing.T, seed int64, extraReplicas int) *Cluster {
	c := New(t, Options{Seed: seed})
	r0 := c.AddServer("r0", ServerAddr(0))
	r1 := c.AddServer("r1", ServerAddr(1))
	r0.SlaveOf(r1.Addr)
	r2 := c.AddReplica("r2", ServerAddr(2), r1)
	known := []settings.Addr{r0.Addr, r2.Addr}
	for k := 3; k < 3+extraReplicas; k++ {
		r := c.AddReplica("r"+strconv.Itoa(k), ServerAddr(k), r1)
		known = append(known, r.Addr)
	}
	// s1 and s2 knew r1 and the other replicas as replicas of r0.
	for k := 0; k < 2; k++ {
		old := MonitorConfig(masterName, r0.Addr, 2, downAfter)
		old.Masters[0].KnownReplicas = append([]settings.Addr{r1.Addr}, known[1:]...)
		c.AddSentinel(old)
	}
	p := MonitorConfig(masterName, r1.Addr, 2, downAfter)
	p.MyID = monitor.GenerateID(rand.New(rand.NewSource(seed)))
	p.CurrentEpoch = 5
	p.Masters[0].ConfigEpoch = 5
	p.Masters[0].KnownReplicas = known
	c.AddSentinel(p)
	return c
}

// TestHelloConfigAdoption: the Sentinels still pointing at the old master
// learn the newer configuration from s3's hellos (published on the old
// master, now a replica, and on the others): +new-epoch, then
// +config-update-from and +switch-master, and every node ends with the
// same master address, config epoch and replicas, persisted.
func TestHelloConfigAdoption(t *testing.T) {
	t.Parallel()
	c := switchedCluster(t, 50, 0)
	s3ID := c.Node("s3").Core.MyID()
	want := c.Server("r1").Addr
	if !c.RunUntil(func() bool {
		return allNodes(c, func(n *Node) bool { a, _ := n.Core.View().MasterAddr(masterName); return a == want })
	}, 10*time.Second) {
		c.Fatalf("not every node switched to %v within 10 s", want)
	}
	c.Run(15 * time.Second)
	for _, name := range []string{"s1", "s2"} {
		n := c.Node(name)
		if !c.HasEvent(c.start, name, "+new-epoch", "5") {
			c.Fatalf("%s: no +new-epoch 5", name)
		}
		if !c.HasEvent(c.start, name, "+config-update-from", "sentinel "+s3ID) {
			c.Fatalf("%s: no +config-update-from s3", name)
		}
		sw := c.EventsOf(name, "+switch-master")
		if len(sw) != 1 || sw[0].Msg != "m 10.0.1.1 6379 10.0.1.2 6379" {
			c.Fatalf("%s: +switch-master events %v", name, sw)
		}
		if n.Core.CurrentEpoch() != 5 {
			c.Fatalf("%s: current epoch %d", name, n.Core.CurrentEpoch())
		}
	}
	if sw := c.EventsOf("s3", "+switch-master"); len(sw) != 0 {
		c.Fatalf("s3, which had the newest config, switched: %v", sw)
	}
	for _, n := range c.Nodes() {
		kv := masterKV(t, n)
		if Field(kv, "ip") != want.Host || Field(kv, "config-epoch") != "5" || Field(kv, "flags") != "master" {
			c.Fatalf("%s: master view %v", n.Name, kv)
		}
		var names []string
		for _, r := range replicasOf(t, n) {
			names = append(names, Field(r, "name"))
		}
		if !equal(names, []string{"10.0.1.1:6379", "10.0.1.3:6379"}) {
			c.Fatalf("%s: replicas %v", n.Name, names)
		}
		if d := n.Disk.Masters[0]; d.Addr != want || d.ConfigEpoch != 5 {
			c.Fatalf("%s: persisted master %v epoch %d", n.Name, d.Addr, d.ConfigEpoch)
		}
	}
}
