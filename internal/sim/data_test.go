package sim

import (
	"testing"
)

// TestDataCommands drives the writes, CLIENT PAUSE's arguments and the
// transactions of the modelled Redis command by command, on a master and
// on its replica.
func TestDataCommands(t *testing.T) {
	t.Parallel()
	c := New(t, Options{Seed: 1})
	m := c.AddServer("r0", ServerAddr(0))
	r := c.AddReplica("r1", ServerAddr(1), m)
	c.AddSentinel(MonitorConfig(masterName, m.Addr, 2, downAfter))
	onM, onR := newConnFor(c, m), newConnFor(c, r)
	tests := []struct {
		on   *conn
		args []string
		want string
	}{
		{onM, []string{"GET", "k"}, "(nil)"},
		{onM, []string{"INCR", "k"}, ":1"},
		{onM, []string{"INCR", "k"}, ":2"},
		{onM, []string{"GET", "k"}, "+2"},
		{onM, []string{"SET", "s", "x"}, "+OK"},
		{onM, []string{"INCR", "s"}, "-ERR value is not an integer or out of range"},
		{onM, []string{"SET", "s"}, "-ERR wrong number of arguments for 'set' command"},
		{onR, []string{"SET", "k", "v"}, "-" + ReadOnlyError},
		{onR, []string{"GET", "k"}, "(nil)"}, // not replicated: no run yet
		{onR, []string{"MULTI"}, "+OK"},
		{onR, []string{"INCR", "k"}, "-" + ReadOnlyError},
		{onR, []string{"GET", "k"}, "+QUEUED"},
		{onR, []string{"EXEC"}, "-EXECABORT Transaction discarded because of previous errors."},
		{onM, []string{"MULTI"}, "+OK"},
		{onM, []string{"INCR", "k"}, "+QUEUED"},
		{onM, []string{"SET", "t", "1"}, "+QUEUED"},
		{onM, []string{"EXEC"}, "*[:3 +OK]"},
		{onM, []string{"CLIENT", "PAUSE"}, "-ERR syntax error"},
		{onM, []string{"CLIENT", "PAUSE", "x"}, "-ERR timeout is not an integer or out of range"},
		{onM, []string{"CLIENT", "PAUSE", "-1"}, "-ERR timeout is negative"},
		{onM, []string{"CLIENT", "PAUSE", "10", "READ"}, "-ERR CLIENT PAUSE mode must be WRITE or ALL"},
		{onM, []string{"CLIENT", "UNPAUSE"}, "+OK"},
		{onM, []string{"FAILOVER", "TIMEOUT", "x"}, "-ERR value is not an integer or out of range"},
		{onM, []string{"FAILOVER", "TO", "10.0.1.2"}, "-ERR syntax error"},
	}
	for i, tt := range tests {
		s := tt.on.toSrv
		if got := traceReply(c.redisCommand(s, tt.on, tt.args)); got != tt.want {
			t.Fatalf("step %d %s %q: %s, want %s", i, s.Name, tt.args, got, tt.want)
		}
	}
	log := m.Log()
	if len(log) != 4 || len(log[3].Cmds) != 2 || log[3].Offset != m.ReplOffset {
		t.Fatalf("master log %+v, offset %d: want 4 writes, the last the transaction's two", log, m.ReplOffset)
	}
	c.Run(100 * maxLatency)
	if v, _ := r.Get("t"); v != "1" || r.ReplOffset != m.ReplOffset || len(r.Log()) != 4 {
		t.Fatalf("replica has t=%q, offset %d, %d writes; want the master's", v, r.ReplOffset, len(r.Log()))
	}
}
