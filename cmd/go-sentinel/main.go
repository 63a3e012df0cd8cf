// Command go-sentinel is a drop-in replacement for redis-sentinel:
//
//	go-sentinel /path/sentinel.conf [--directive value ...]
//
// It also answers to `version`, `check CONFIG` (see check.go) and
// `explain MASTER` (see explain.go).
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/go-sentinel/go-sentinel/internal/buildinfo"
	"github.com/go-sentinel/go-sentinel/internal/config"
	"github.com/go-sentinel/go-sentinel/internal/logging"
	"github.com/go-sentinel/go-sentinel/internal/process"
)

func main() {
	tuneRuntime()
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run executes the command line args (without the program name) and
// returns the process exit code.
func run(args []string, stdout, stderr io.Writer) int {
	code := 0
	root := &cobra.Command{
		Use:   "go-sentinel /path/to/sentinel.conf [--directive value ...]",
		Short: "A drop-in replacement for the Redis Sentinel daemon",
		Long: "go-sentinel monitors Redis masters and replicas, detects failures and fails over,\n" +
			"speaking the same protocol, config file and log format as redis-sentinel " + buildinfo.RedisVersion + ".\n\n" +
			"Directives after the config file are applied as config lines after the file,\n" +
			"e.g. `go-sentinel sentinel.conf --port 26380 --supervised systemd --daemonize no`.\n\n" +
			"Documentation: README.md and docs/*.md, installed in /usr/share/doc/go-sentinel\n" +
			"(/usr/local/share/doc/go-sentinel by `make install`): configuration.md, migrating.md,\n" +
			"compatibility.md, explain.md, metrics.md, proxy.md, performance.md and more.",
		Args:               cobra.ArbitraryArgs,
		DisableFlagParsing: true,
		SilenceUsage:       true,
		SilenceErrors:      true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				switch args[0] {
				case "-v", "--version":
					printVersion(stdout)
					return nil
				case "-h", "--help":
					return cmd.Help()
				}
			}
			code = serve(args, stdout, stderr)
			return nil
		},
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.CompletionOptions.DisableDefaultCmd = true
	root.AddCommand(&cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  cobra.NoArgs,
		Run:   func(*cobra.Command, []string) { printVersion(stdout) },
	})
	root.AddCommand(newCheckCommand(stdout, stderr, &code))
	root.AddCommand(newExplainCommand(stdout, stderr, &code))
	addShellSupport(root)
	root.SetArgs(args)
	if err := root.Execute(); err != nil {
		fmt.Fprintln(stderr, "go-sentinel:", err)
		return 1
	}
	return code
}

func printVersion(w io.Writer) {
	fmt.Fprintf(w, "go-sentinel %s (compatible with Redis Sentinel v=%s) commit=%s\n",
		buildinfo.Version, buildinfo.RedisVersion, buildinfo.Commit)
}

// printConfigError writes a config error the way redis does: the fatal
// block for parse errors, a one-line message for I/O errors.
func printConfigError(w io.Writer, err error) {
	fmt.Fprint(w, configErrorText(err))
}

// configErrorText is the text printConfigError writes for err.
func configErrorText(err error) string {
	msg := err.Error()
	if !strings.HasPrefix(msg, "\n") {
		msg = "Fatal error, " + msg + "\n"
	}
	return msg
}

// logConfigError appends a config error that names the configured log
// file (config.Error.Logfile) to that file, one warning line per line
// of the block, so an operator who reads only the log file sees why the
// daemon did not start; other errors reach stderr only, as in Redis. A
// log file that cannot be opened is reported on w.
func logConfigError(w io.Writer, err error) {
	var ce *config.Error
	if !errors.As(err, &ce) || ce.Logfile == "" {
		return
	}
	log, lerr := logging.New(logging.Options{Level: logging.LevelWarning, File: ce.Logfile})
	if lerr != nil {
		fmt.Fprintf(w, "Can't open the log file: %s\n", process.Strerror(lerr))
		return
	}
	defer log.Close()
	for _, line := range strings.Split(strings.TrimSpace(configErrorText(err)), "\n") {
		log.Warning(line)
	}
}
