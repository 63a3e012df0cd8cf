package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/spf13/cobra"

	"github.com/go-sentinel/go-sentinel/internal/lint/probe"
)

// explainFlags are the options of `go-sentinel explain`, named as
// redis-cli names them.
type explainFlags struct {
	host     string
	port     int
	user     string
	password string
	json     bool
	timeout  time.Duration
}

// explainLong is the help text of `go-sentinel explain`.
const explainLong = `Explain asks a running go-sentinel where MASTER stands in the
SDOWN -> ODOWN -> vote -> failover pipeline, and why it is not further along
(SENTINEL EXPLAIN MASTER), then prints the answer:

  - the stage (ok, sdown, odown, failover) and the reasons, most important
    first: the master answers, not enough Sentinels report it down for the
    quorum, a Sentinel cannot be asked, no majority can vote, the 2 x
    failover-timeout wait after an attempt, TILT, no replica can be promoted;
  - the detection (SDOWN/ODOWN and for how long, down-after-milliseconds,
    the link, the last valid reply), the quorum and majority arithmetic and
    each other Sentinel's opinion and vote, the epochs and this Sentinel's
    vote;
  - the failover state, its deadline and when the next attempt may start;
    TILT and when it ends;
  - every replica, eligible or the exact rule that excludes it (disconnected,
    SDOWN, priority 0, stale INFO, master link down too long, ...), and the
    one a failover would promote now;
  - the phases of the current and of the last failover, each with its start
    and duration.

The answer is this Sentinel's view: ask several Sentinels of the fleet to
compare. With --json the same facts are printed as one JSON document
(SENTINEL EXPLAIN MASTER JSON). Exit status: 0 when the Sentinel answered,
1 when it could not be reached or replied with an error (an unknown master,
a Sentinel that is not go-sentinel).

More: explain.md in /usr/share/doc/go-sentinel (docs/ in the source).`

// newExplainCommand returns the `explain` subcommand; its exit status is
// stored in *code.
func newExplainCommand(stdout, stderr io.Writer, code *int) *cobra.Command {
	var f explainFlags
	cmd := &cobra.Command{
		Use:   "explain MASTER [-h host] [-p port] [-a password] [--user name] [--json]",
		Short: "Explain why a master has or has not failed over, as a running go-sentinel sees it",
		Long:  explainLong,
		Example: "  go-sentinel explain mymaster\n" +
			"  go-sentinel explain mymaster -h 10.0.0.1 -p 26379 -a secret\n" +
			"  go-sentinel explain mymaster --json | jq '.replicas[] | select(.eligible | not)'",
		Args:                  cobra.ExactArgs(1),
		DisableFlagsInUseLine: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			*code = runExplain(args[0], f, stdout, stderr)
			return nil
		},
	}
	fl := cmd.Flags()
	// -h is the host, as in redis-cli; help is --help only.
	fl.Bool("help", false, "help for explain")
	fl.StringVarP(&f.host, "host", "h", "127.0.0.1", "the Sentinel's host")
	fl.IntVarP(&f.port, "port", "p", 26379, "the Sentinel's port")
	fl.StringVar(&f.user, "user", "", "the ACL user to authenticate as (with -a)")
	fl.StringVarP(&f.password, "pass", "a", "", "the password to authenticate with (requirepass, or the --user's)")
	fl.BoolVar(&f.json, "json", false, "print the explanation as JSON")
	fl.DurationVar(&f.timeout, "timeout", 5*time.Second, "timeout to connect and to get the answer")
	return cmd
}

// runExplain asks the Sentinel and prints its answer; it returns the exit
// status.
func runExplain(master string, f explainFlags, stdout, stderr io.Writer) int {
	probe.Quiet() // a failed dial is reported below, once
	addr := net.JoinHostPort(f.host, strconv.Itoa(f.port))
	c := redis.NewClient(&redis.Options{
		Addr:            addr,
		Username:        f.user,
		Password:        f.password,
		Protocol:        2,
		DisableIdentity: true,
		MaxRetries:      -1,
		DialTimeout:     f.timeout,
		ReadTimeout:     f.timeout,
		WriteTimeout:    f.timeout,
	})
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), f.timeout)
	defer cancel()
	args := []any{"SENTINEL", "EXPLAIN", master}
	if f.json {
		args = append(args, "JSON")
	}
	out, err := c.Do(ctx, args...).Text()
	if err != nil {
		fmt.Fprintf(stderr, "go-sentinel explain: %s: %v\n", addr, err)
		if strings.Contains(err.Error(), "unknown subcommand") {
			fmt.Fprintf(stderr, "go-sentinel explain: the Sentinel at %s does not know SENTINEL EXPLAIN (a go-sentinel extension)\n", addr)
		}
		return 1
	}
	if f.json {
		var b bytes.Buffer
		if json.Indent(&b, []byte(out), "", "  ") == nil {
			out = b.String() + "\n"
		}
	}
	fmt.Fprint(stdout, out)
	return 0
}
