package respserver

import "testing"

// TestIsMasterDownByAddr checks SENTINEL IS-MASTER-DOWN-BY-ADDR on the
// wire: Redis 7.0.15's reply array and its errors for the arguments.
func TestIsMasterDownByAddr(t *testing.T) {
	_, _, addr := startServer(t, nil)
	c := dial(t, addr)
	const voter = "fedcba9876543210fedcba9876543210fedcba98"
	const intErr = "-ERR value is not an integer or out of range\r\n"
	noVote := "*3\r\n:0\r\n$1\r\n*\r\n:0\r\n"
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"SENTINEL", "is-master-down-by-addr", "127.0.0.1", "6379", "0", "*"}, noVote},
		{[]string{"SENTINEL", "IS-MASTER-DOWN-BY-ADDR", "10.9.9.9", "6379", "0", "*"}, noVote},
		{[]string{"SENTINEL", "is-master-down-by-addr", "127.0.0.1", "6380", "3", voter}, noVote},
		{[]string{"SENTINEL", "is-master-down-by-addr", "127.0.0.1", "x", "0", "*"}, intErr},
		{[]string{"SENTINEL", "is-master-down-by-addr", "127.0.0.1", "+6379", "0", "*"}, intErr},
		{[]string{"SENTINEL", "is-master-down-by-addr", "127.0.0.1", "2147483648", "0", "*"}, intErr},
		{[]string{"SENTINEL", "is-master-down-by-addr", "127.0.0.1", "6379", "01", "*"}, intErr},
		{[]string{"SENTINEL", "is-master-down-by-addr", "127.0.0.1", "6379", "9223372036854775808", "*"}, intErr},
		{[]string{"SENTINEL", "is-master-down-by-addr", "127.0.0.1", "6379", "0"},
			"-ERR wrong number of arguments for 'sentinel|is-master-down-by-addr' command\r\n"},
		{[]string{"SENTINEL", "is-master-down-by-addr", "127.0.0.1", "6379", "5", voter},
			"*3\r\n:0\r\n$40\r\n" + voter + "\r\n:5\r\n"},
		{[]string{"SENTINEL", "is-master-down-by-addr", "127.0.0.1", "6379", "4", testID},
			"*3\r\n:0\r\n$40\r\n" + voter + "\r\n:5\r\n"},
		{[]string{"SENTINEL", "is-master-down-by-addr", "127.0.0.1", "6379", "-1", testID},
			"*3\r\n:0\r\n$40\r\n" + testID + "\r\n:-1\r\n"},
	}
	for _, tt := range tests {
		if got := c.Do(tt.args...); got != tt.want {
			t.Errorf("%v:\n got %q\nwant %q", tt.args, got, tt.want)
		}
	}
}
