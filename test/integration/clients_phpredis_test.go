package integration

import (
	"os/exec"
	"path/filepath"
	"testing"
)

// phpRedis returns a php interpreter with phpredis's RedisSentinel class,
// or skips the test.
func phpRedis(t *testing.T) string {
	t.Helper()
	php, err := exec.LookPath("php")
	if err != nil {
		t.Skip("php not installed (apt-get install php-cli php-redis); .ci/run installs it")
	}
	if err := runtimeProbe("", php, "-r", `exit(class_exists("RedisSentinel") ? 0 : 1);`); err != nil {
		t.Skipf("php has no RedisSentinel (apt-get install php-redis); .ci/run installs it: %v", err)
	}
	return php
}

// TestClientPhpRedisFollowsFailover runs phpredis (RedisSentinel
// getMasterAddrByName and slaves, then Redis with a ROLE check, asking the
// Sentinels again after any error) through a SIGKILL of the master, with
// go-sentinel and then with redis-sentinel, and logs the longest write gap
// of each.
func TestClientPhpRedisFollowsFailover(t *testing.T) {
	php := phpRedis(t)
	testFailoverGaps(t, "phpredis", nil, php, filepath.Join(clientsDir(t), "phpredis_client.php"))
}
