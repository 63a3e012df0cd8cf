// Command go-sentinel is a drop-in replacement for redis-sentinel:
//
//	go-sentinel /path/sentinel.conf [--directive value ...]
//
// It also answers to `version` and `check CONFIG`.
package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/go-sentinel/go-sentinel/internal/buildinfo"
	"github.com/go-sentinel/go-sentinel/internal/config"
)

func main() {
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
			"e.g. `go-sentinel sentinel.conf --port 26380 --supervised systemd --daemonize no`.",
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
	root.AddCommand(&cobra.Command{
		Use:                "check CONFIG [--directive value ...]",
		Short:              "Validate a sentinel.conf and print what was parsed",
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
				return cmd.Help()
			}
			code = check(args[0], args[1:], stdout, stderr)
			return nil
		},
	})
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

// check parses and validates a config file and prints the result.
func check(path string, args []string, stdout, stderr io.Writer) int {
	cfg, err := config.Load(path, args)
	if err != nil {
		printConfigError(stderr, err)
		return 1
	}
	fmt.Fprint(stdout, config.Format(cfg))
	fmt.Fprintf(stdout, "%s: OK\n", cfg.File)
	return 0
}

// printConfigError writes a config error the way redis does: the fatal
// block for parse errors, a one-line message for I/O errors.
func printConfigError(w io.Writer, err error) {
	msg := err.Error()
	if !strings.HasPrefix(msg, "\n") {
		msg = "Fatal error, " + msg + "\n"
	}
	fmt.Fprint(w, msg)
}
