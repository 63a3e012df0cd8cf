package respserver

import "testing"

// TestCkQuorumReplies pins SENTINEL CKQUORUM's framing: the core's check
// supplies the text, this layer alone the + or - of RESP.
func TestCkQuorumReplies(t *testing.T) {
	_, _, addr := startServer(t, nil)
	c := dial(t, addr)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"SENTINEL", "CKQUORUM", "nosuch"}, "-ERR No such master with that name\r\n"},
		// Alone with quorum 2: the majority of 1 is there, the quorum is not.
		{[]string{"SENTINEL", "CKQUORUM", "mymaster"}, "-NOQUORUM 1 usable Sentinels. Not enough available Sentinels to reach the specified quorum for this master\r\n"},
		{[]string{"SENTINEL", "SET", "mymaster", "quorum", "1"}, "+OK\r\n"},
		{[]string{"SENTINEL", "CKQUORUM", "mymaster"}, "+OK 1 usable Sentinels. Quorum and failover authorization can be reached\r\n"},
	}
	for _, tt := range tests {
		if got := c.Do(tt.args...); got != tt.want {
			t.Errorf("%v:\n got %q\nwant %q", tt.args, got, tt.want)
		}
	}
}
