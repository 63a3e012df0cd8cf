package main

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/go-sentinel/go-sentinel/internal/config"
	"github.com/go-sentinel/go-sentinel/internal/lint"
	"github.com/go-sentinel/go-sentinel/internal/lint/probe"
	"github.com/go-sentinel/go-sentinel/internal/tlsconf"
)

// checkFlags are the options of `go-sentinel check`.
type checkFlags struct {
	sentinels []string
	sla       time.Duration
	json      bool
	timeout   time.Duration
	// redisSentinels is --redis-sentinels; redisSet tells whether it was
	// given.
	redisSentinels int
	redisSet       bool
	// printMerged is --print-merged: print the config file with its
	// state-config-file folded in (config.MergedBytes) and exit.
	printMerged bool
}

// checkLong is the help text of `go-sentinel check`.
const checkLong = `Check parses CONFIG exactly as the daemon would (with the --directive value
pairs applied after the file), prints what was parsed, then lints the
topology it describes. Each finding has a severity, a rule id, the master
it is about, the reason and the fix.

Static checks (always): the number of Sentinels per master (this Sentinel
plus its "sentinel known-sentinel" lines, or its "sentinel voters" when
higher: fewer than 3, an even count),
the quorum against that count and against the majority a failover needs,
down-after-milliseconds and failover-timeout (too small to be safe; the
expected and worst-case write unavailability of a failover, against --sla).
The failover estimate models go-sentinel's phases, or Redis 7.0's for the
Sentinels that run redis-sentinel (a mixed fleet: each may lead): give
their number with --redis-sentinels; the live checks tell them apart by
their INFO (go-sentinel's has go_version).

Live checks (with --sentinels): the Sentinels are asked about every master
of CONFIG (SENTINEL MASTER, SENTINELS, REPLICAS, CKQUORUM,
GET-MASTER-ADDR-BY-NAME), which replaces the Sentinel count of the file,
the Sentinels they list are asked for INFO server, then the master and
replicas they report are queried (INFO, CONFIG GET
min-replicas-*, PING, ACL DRYRUN of the failover commands): a master
without min-replicas-to-write, replicas that are all replica-priority 0 or
accept writes, a master close to what one instance can hold or serve,
Sentinels that disagree or cannot reach a quorum now, a master or replica
older than Redis 6.2 (no FAILOVER, no CLIENT PAUSE WRITE) or on which
Sentinel's user may not run FAILOVER, CLIENT PAUSE/UNPAUSE/KILL, CONFIG
REWRITE, MULTI, EXEC, a master or replica whose release does not match the
command surface CONFIG selects (the dump shows it: "sentinel
command-surface", 7.0 by default; 7.0 with Redis 7.2 or later or Valkey,
7.2 with Redis older than 7.2). Only read-only commands are sent (ACL DRYRUN runs
nothing), with the credentials of CONFIG (sentinel-user/sentinel-pass or
requirepass towards Sentinels, auth-user/auth-pass towards instances) and
TLS when tls-replication is yes.

With sentinel state-config-file, the state file is read over CONFIG as the
daemon reads it, and the dump names it. --print-merged prints CONFIG with
the state folded in instead of checking it: a config file redis-sentinel
reads (a rollback), as go-sentinel's rewrite would write it without the
directive.

Exit status: 0 no warning or error (info findings allowed), 1 warnings,
2 errors. A config that does not load prints redis's fatal error block on
stderr and exits 1, as the daemon does; with --json stdout then holds
{"file": ..., "error": ..., "exit_code": 1}.

Every rule, with examples: configuration.md in /usr/share/doc/go-sentinel
(docs/ in the source).`

// newCheckCommand returns the `check` subcommand; its exit status is
// stored in *code.
func newCheckCommand(stdout, stderr io.Writer, code *int) *cobra.Command {
	var f checkFlags
	cmd := &cobra.Command{
		Use:   "check CONFIG [--sentinels host:port,...] [--sla DURATION] [--redis-sentinels N] [--json] [--print-merged] [--directive value ...]",
		Short: "Validate a sentinel.conf and lint the Sentinel topology it describes",
		Long:  checkLong,
		Example: "  go-sentinel check /etc/redis/sentinel.conf\n" +
			"  go-sentinel check /etc/redis/sentinel.conf --sentinels 10.0.0.1:26379,10.0.0.2:26379,10.0.0.3:26379 --sla 10s\n" +
			"  go-sentinel check sentinel.conf --json --sentinels 127.0.0.1:26379 | jq '.findings[] | select(.severity != \"info\")'",
		// Flags are picked out of the arguments by hand so that the
		// redis-style --directive value pairs reach the config parser.
		DisableFlagParsing:    true,
		DisableFlagsInUseLine: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			own, rest, help := splitCheckArgs(args)
			if help || len(rest) == 0 {
				return cmd.Help()
			}
			if err := cmd.Flags().Parse(own); err != nil {
				return err
			}
			if f.sla < 0 {
				return fmt.Errorf("--sla must not be negative, got %v", f.sla)
			}
			if f.redisSet = cmd.Flags().Changed("redis-sentinels"); f.redisSet && f.redisSentinels < 0 {
				return fmt.Errorf("--redis-sentinels must not be negative, got %d", f.redisSentinels)
			}
			if strings.HasPrefix(rest[0], "-") {
				return fmt.Errorf("check: the first argument must be the config file, got %q", rest[0])
			}
			*code = runCheck(rest[0], rest[1:], f, stdout, stderr)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringSliceVar(&f.sentinels, "sentinels", nil, "Sentinels to ask for the live checks, comma-separated host:port (any of the fleet; more give a fuller picture)")
	fl.DurationVar(&f.sla, "sla", 0, "longest acceptable write unavailability during a failover, e.g. 10s; checks down-after-milliseconds and failover-timeout against it")
	fl.BoolVar(&f.json, "json", false, "print the findings as one JSON document instead of text (no config dump)")
	fl.BoolVar(&f.printMerged, "print-merged", false, "print CONFIG with its sentinel state-config-file folded in, as a config file redis-sentinel reads (a rollback), and exit")
	fl.DurationVar(&f.timeout, "timeout", probe.DefaultTimeout, "timeout of each connection and command of the live checks")
	fl.IntVar(&f.redisSentinels, "redis-sentinels", 0, "how many of each master's Sentinels run redis-sentinel, for the failover estimate "+
		"(default: none, or, with --sentinels, those whose INFO has no go_version)")
	return cmd
}

// checkFlagNames are the flags of check that take a value.
var checkFlagNames = map[string]bool{"--sentinels": true, "--sla": true, "--timeout": true, "--redis-sentinels": true}

// splitCheckArgs separates check's own flags from the config file and the
// --directive value pairs meant for the config parser; help reports -h or
// --help.
func splitCheckArgs(args []string) (own, rest []string, help bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, _, hasValue := strings.Cut(a, "=")
		switch {
		case a == "-h" || a == "--help":
			help = true
		case a == "--json" || strings.HasPrefix(a, "--json="), a == "--print-merged":
			own = append(own, a)
		case checkFlagNames[name] && hasValue:
			own = append(own, a)
		case checkFlagNames[name] && i+1 < len(args):
			own = append(own, a, args[i+1])
			i++
		default:
			rest = append(rest, a)
		}
	}
	return own, rest, help
}

// runCheck loads and lints one config file and prints the report. It
// returns the exit status.
func runCheck(path string, directives []string, f checkFlags, stdout, stderr io.Writer) int {
	cfg, err := config.Load(path, directives)
	if err != nil {
		printConfigError(stderr, err)
		if f.json {
			if abs, aerr := filepath.Abs(path); aerr == nil {
				path = abs
			}
			writeLoadErrorJSON(stdout, path, err)
		}
		return 1
	}
	if f.printMerged {
		b, err := config.MergedBytes(cfg)
		if err != nil {
			fmt.Fprintf(stderr, "go-sentinel check: %v\n", err)
			return 1
		}
		stdout.Write(b)
		return 0
	}
	var facts *lint.Facts
	if len(f.sentinels) > 0 {
		opts := probe.Options{Timeout: f.timeout}
		if opts.TLS, err = clientTLS(cfg); err != nil {
			fmt.Fprintf(stderr, "go-sentinel check: %v\n", err)
			return 1
		}
		probe.Quiet()
		ctx, cancel := context.WithTimeout(context.Background(), 10*f.timeout+10*time.Second)
		facts = probe.Gather(ctx, cfg, f.sentinels, opts)
		cancel()
	}
	opts := lint.Options{SLA: f.sla}
	if f.redisSet {
		opts.RedisSentinels = &f.redisSentinels
	}
	r := lint.NewReport(cfg.File, f.sentinels, f.sla.Milliseconds(), lint.Check(cfg, facts, opts))
	if f.json {
		lint.WriteJSON(stdout, r)
	} else {
		fmt.Fprint(stdout, config.Format(cfg))
		fmt.Fprintln(stdout)
		lint.WriteText(stdout, r)
	}
	return r.ExitCode
}

// clientTLS is the client TLS configuration the Sentinel of cfg uses for
// its links, or nil without tls-replication.
func clientTLS(cfg *config.Config) (*tls.Config, error) {
	if !cfg.Server.TLSReplication {
		return nil, nil
	}
	m, err := tlsconf.New(tlsconf.FilesOf(cfg.Server))
	if err != nil {
		return nil, fmt.Errorf("TLS: %w", err)
	}
	return m.Client(), nil
}

// writeLoadErrorJSON reports a config that does not load, for --json.
func writeLoadErrorJSON(w io.Writer, path string, err error) {
	msg := strings.TrimSpace(err.Error())
	var ce *config.Error
	if errors.As(err, &ce) {
		msg = ce.Msg
		if ce.Line > 0 {
			msg = fmt.Sprintf("%s: '%s': %s", ce.Position(), ce.Text, ce.Msg)
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.Encode(struct {
		File     string `json:"file"`
		Error    string `json:"error"`
		ExitCode int    `json:"exit_code"`
	}{path, msg, 1})
}
