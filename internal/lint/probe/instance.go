package probe

import (
	"context"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/go-sentinel/go-sentinel/internal/lint"
	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// instanceProber queries the master and replicas of one master with its
// credentials and command renames.
type instanceProber struct {
	*prober
	spec       settings.MasterSpec
	user, pass string
	// renames maps an upper-case command name to its renamed form.
	renames map[string]string
}

// probed is an Instance plus the replicas a master's INFO lists.
type probed struct {
	lint.Instance
	replicaAddrs []string
}

// cmd returns name as the master's rename-command mapping has it.
func (in *instanceProber) cmd(name string) string {
	if r, ok := in.renames[name]; ok {
		return r
	}
	return name
}

// probe queries one instance: PING round trips, INFO, ACL DRYRUN of the
// failover commands and, for a master, CONFIG GET min-replicas-*.
func (in *instanceProber) probe(ctx context.Context, addr string, master bool) probed {
	out := probed{Instance: lint.Instance{Addr: addr}}
	c := in.client(addr, in.user, in.pass)
	defer c.Close()
	for i := 0; i < in.opts.Pings; i++ {
		start := time.Now()
		if err := c.Do(ctx, in.cmd("PING")).Err(); err != nil {
			out.Err = errText(err)
			return out
		}
		out.MaxRTT = max(out.MaxRTT, time.Since(start))
	}
	text, err := c.Do(ctx, in.cmd("INFO")).Text()
	if err != nil {
		out.Err = errText(err)
		return out
	}
	info := parseInfo(text)
	out.Role = info["role"]
	if v, ok := info["slave_priority"]; ok {
		out.Priority, out.PriorityKnown = atoi(v), true
	}
	if v, ok := info["slave_read_only"]; ok {
		out.ReadOnly, out.ReadOnlyKnown = v == "1", true
	}
	out.UsedMemory = atoi64(info["used_memory"])
	out.MaxMemory = atoi64(info["maxmemory"])
	out.TotalSystemMemory = atoi64(info["total_system_memory"])
	out.OpsPerSec = atoi64(info["instantaneous_ops_per_sec"])
	out.Version = info["redis_version"]
	if v, ok := info["valkey_version"]; ok {
		out.Version, out.Valkey = v, true
	}
	_, out.FailoverState = info["master_failover_state"]
	out.FailoverACL = in.failoverACL(ctx, c)
	if !master {
		return out
	}
	out.replicaAddrs = replicaLines(info)
	if kv, err := c.Do(ctx, in.cmd("CONFIG"), "GET", "min-replicas-*").Slice(); err == nil {
		m := pairs(kv)
		w, okW := m["min-replicas-to-write"]
		l, okL := m["min-replicas-max-lag"]
		if okW && okL {
			out.MinReplicasKnown = true
			out.MinReplicasToWrite, out.MinReplicasMaxLag = atoi(w), atoi(l)
		}
	}
	return out
}

// failoverACL asks the instance, with ACL DRYRUN, whether the user
// Sentinel logs in as may run each of lint.FailoverCommands. DRYRUN only
// checks the user's rules: none of the commands is run.
func (in *instanceProber) failoverACL(ctx context.Context, c *redis.Client) lint.ACLCheck {
	a := lint.ACLCheck{User: lint.SentinelUser(in.spec)}
	seen := map[string]bool{}
	for _, fc := range lint.FailoverCommands {
		args := []any{in.cmd("ACL"), "DRYRUN", a.User}
		for _, s := range fc.Argv(in.spec) {
			args = append(args, s)
		}
		name := fc.ACLName(in.spec)
		reply, err := c.Do(ctx, args...).Text()
		var d lint.ACLDenial
		switch {
		case err == nil && reply == "OK":
			continue
		case err == nil:
			// The reason the user may not run it, as a bulk string.
			d = lint.ACLDenial{Command: name, Reason: reply}
		case isRedisErr(err) && commandNotFound(err.Error()):
			d = lint.ACLDenial{Command: name, Missing: true, Reason: err.Error()}
		default:
			// DRYRUN itself failed: unknown before 7.0, not permitted to
			// this user, or the instance stopped answering.
			return lint.ACLCheck{User: a.User, Unverified: errText(err)}
		}
		if !seen[name] {
			seen[name] = true
			a.Denied = append(a.Denied, d)
		}
	}
	a.Verified = true
	return a
}

// commandNotFound reports whether an ACL DRYRUN error says the server has
// no such command: "ERR Command 'FAILOVER' not found".
func commandNotFound(msg string) bool {
	return strings.HasPrefix(msg, "ERR Command '") && strings.HasSuffix(msg, "' not found")
}

// parseInfo splits an INFO reply into its fields.
func parseInfo(text string) map[string]string {
	m := map[string]string{}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimRight(line, "\r")
		if line == "" || line[0] == '#' {
			continue
		}
		if k, v, ok := strings.Cut(line, ":"); ok {
			m[k] = v
		}
	}
	return m
}

// replicaLines returns the "host:port" of the slaveN lines of a master's
// INFO, in order.
func replicaLines(info map[string]string) []string {
	var out []string
	for i := 0; ; i++ {
		v, ok := info["slave"+strconv.Itoa(i)]
		if !ok {
			return out
		}
		kv := map[string]string{}
		for _, f := range strings.Split(v, ",") {
			if k, val, ok := strings.Cut(f, "="); ok {
				kv[k] = val
			}
		}
		if kv["ip"] != "" && kv["port"] != "" {
			out = append(out, net.JoinHostPort(kv["ip"], kv["port"]))
		}
	}
}

func atoi(s string) int {
	n, _ := strconv.Atoi(strings.TrimSpace(s))
	return n
}

func atoi64(s string) int64 {
	n, _ := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	return n
}
