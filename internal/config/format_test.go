package config

import (
	"strings"
	"testing"
)

func TestFormat(t *testing.T) {
	text := `port 26380
requirepass topsecret1
user alice on >topsecret2 #0123abcd ~* +@all
tls-key-file-pass topsecret3
acllog-max-len 10
repl-diskless-sync-delay 0
sentinel monitor mymaster 10.0.0.1 6379 2
sentinel auth-pass mymaster topsecret4
sentinel auth-user mymaster bob
sentinel sentinel-pass topsecret5
sentinel known-replica mymaster 10.0.0.2 6380
sentinel voters mymaster 3
sentinel forget-sentinel-after mymaster 5000
sentinel myid ` + id1 + `
`
	c := mustParse(t, text)
	out := Format(c)
	for _, secret := range []string{"topsecret1", "topsecret2", "topsecret3", "topsecret4", "topsecret5", "0123abcd"} {
		if strings.Contains(out, secret) {
			t.Errorf("Format shows %q:\n%s", secret, out)
		}
	}
	for _, want := range []string{
		"port                       26380\n",
		"requirepass                ******\n",
		"user                       alice on >****** #****** ~* +@all\n",
		"sentinel-pass              ******\n",
		"master mymaster\n",
		"  auth-pass                      ******\n",
		"  auth-user                      bob\n",
		"  known-replica                  10.0.0.2 6380\n",
		"  voters                         3\n",
		"  forget-sentinel-after          5000\n",
		"myid                       " + id1 + "\n",
		"# 1 directive(s) accepted and ignored\n",
		"#   " + testFile + ":6: repl-diskless-sync-delay\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("Format lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(Format(mustParse(t, "")), "myid                       (generated at start-up)\n") {
		t.Errorf("Format of an empty config does not say the id will be generated")
	}
}
