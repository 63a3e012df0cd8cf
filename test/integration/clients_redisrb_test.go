package integration

import (
	"os/exec"
	"path/filepath"
	"testing"
)

// redisRb returns a ruby interpreter that can require redis (redis-rb),
// preferring Debian's (where apt's ruby-redis lands), or skips the test.
func redisRb(t *testing.T) string {
	t.Helper()
	for _, cand := range []string{"/usr/bin/ruby", "ruby"} {
		path, err := exec.LookPath(cand)
		if err != nil {
			continue
		}
		if runtimeProbe("", path, "-e", `require "redis"`) == nil {
			return path
		}
	}
	t.Skip("no ruby with redis-rb (apt-get install ruby-redis); .ci/run installs it")
	return ""
}

// TestClientRedisRbFollowsFailover runs redis-rb's Sentinel client
// (sentinels: + role: :master, which asks the Sentinels on every
// reconnection and checks ROLE) through a SIGKILL of the master, with
// go-sentinel and then with redis-sentinel, and logs the longest write gap
// of each.
func TestClientRedisRbFollowsFailover(t *testing.T) {
	ruby := redisRb(t)
	testFailoverGaps(t, "redis-rb", nil, ruby, filepath.Join(clientsDir(t), "redisrb_client.rb"))
}
