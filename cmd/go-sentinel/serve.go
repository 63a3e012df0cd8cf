package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/buildinfo"
	"github.com/go-sentinel/go-sentinel/internal/config"
	"github.com/go-sentinel/go-sentinel/internal/logging"
	"github.com/go-sentinel/go-sentinel/internal/monitor"
	"github.com/go-sentinel/go-sentinel/internal/node"
	"github.com/go-sentinel/go-sentinel/internal/process"
	"github.com/go-sentinel/go-sentinel/internal/respserver"
)

// serve runs the daemon: the same contract as `redis-sentinel CONFIG
// [--directive value ...]`. It returns the exit code.
func serve(args []string, stdout, stderr io.Writer) int {
	path, rest := "", args
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		path, rest = args[0], args[1:]
	}
	if path == "" {
		early(stdout, "Sentinel needs config file on disk to save state. Exiting...")
		return 1
	}
	cfg, err := config.Load(path, rest)
	if err != nil {
		printConfigError(stderr, err)
		logConfigError(stderr, err)
		return 1
	}
	format, err := logging.ParseFormat(cfg.Server.LogFormat)
	if err != nil {
		format = logging.FormatRedis
	}
	if cfg.StateFile != "" {
		// The config file is only read (a read-only file is fine); the
		// state file must be writable.
		if err := process.CheckStateWritable(cfg.StateFile); err != nil {
			earlyIn(format, stdout, err.Error())
			return 1
		}
	} else if err := process.CheckWritable(cfg.File); err != nil {
		earlyIn(format, stdout, err.Error())
		return 1
	}
	if cfg.WorkDir != "" {
		if err := os.Chdir(cfg.WorkDir); err != nil {
			earlyIn(format, stdout, fmt.Sprintf("Can't chdir to '%s': %s", cfg.WorkDir, process.Strerror(err)))
			return 1
		}
	}
	supervised := process.SupervisionMode(cfg.Server.Supervised, os.Getenv)
	daemonized := cfg.Server.Daemonize && supervised == process.SupervisedNo
	if daemonized {
		argv := append([]string{os.Args[0], cfg.File}, rest...)
		isParent, err := process.Daemonize(argv)
		if err != nil {
			earlyIn(format, stdout, "Can't daemonize: "+err.Error())
			return 1
		}
		if isParent {
			return 0
		}
	}

	level, err := logging.ParseLevel(cfg.Server.Loglevel)
	if err != nil {
		level = logging.LevelNotice
	}
	logfile := cfg.Server.Logfile
	if daemonized && logfile == "" {
		logfile = os.DevNull
	}
	opts := logging.Options{Level: level, File: logfile, PID: os.Getpid(), Format: format}
	if logfile == "" {
		opts.Writer = stdout
	}
	log, err := logging.New(opts)
	if err != nil {
		earlyIn(format, stdout, fmt.Sprintf("Can't open the log file: %s", process.Strerror(err)))
		return 1
	}
	defer log.Close()

	log.Warning("oO0OoO0OoO0Oo Redis is starting oO0OoO0OoO0Oo")
	log.Warningf("Redis version=%s, bits=64, commit=%s, modified=0, pid=%d, just started",
		buildinfo.RedisVersion, buildinfo.Commit, os.Getpid())
	log.Warningf("go-sentinel version=%s", buildinfo.Version)
	log.Warning("Configuration loaded")
	if addr, err := startPprof(); err != nil {
		log.Warningf("%s: %v", pprofEnv, err)
	} else if addr != "" {
		log.Noticef("Go profiler listening on http://%s/debug/pprof/", addr)
	}
	for _, l := range cfg.Ignored {
		log.Debugf("Ignoring directive '%s' at %s:%d (not used by Sentinel)", l.Args[0], l.File, l.Num)
	}

	exe, _ := os.Executable()
	info := respserver.ServerInfo{
		Version:    buildinfo.RedisVersion,
		GitSHA1:    buildinfo.Commit,
		BuildID:    buildinfo.Version,
		OS:         runtime.GOOS + " " + runtime.GOARCH,
		ArchBits:   64,
		PID:        os.Getpid(),
		Supervised: supervised,
		RunID:      monitor.GenerateID(newRand()),
		Port:       cfg.Server.Port,
		Started:    time.Now(),
		Executable: exe,
		ConfigFile: cfg.File,
		GoVersion:  runtime.Version(),
	}
	n, err := node.Start(cfg, node.Options{Log: log, Info: info, LogLevel: log.LevelVar(), AdaptProcs: adaptProcs(), ReleasePages: releasePages(), Exit: func(code int) {
		log.Sync()
		os.Exit(code)
	}})
	if err != nil {
		log.Warningf("%v", err)
		if errors.Is(err, node.ErrMetricsListen) {
			log.Warning("Failed listening on metrics-addr " + cfg.Server.MetricsAddr + ", aborting.")
		} else {
			log.Warning("Failed listening on port " + fmt.Sprint(cfg.Server.Port) + " (tcp), aborting.")
		}
		return 1
	}

	pidfile := cfg.Server.Pidfile
	if pidfile == "" && daemonized {
		pidfile = process.DefaultPidfile
	}
	if pidfile != "" {
		if err := process.WritePidfile(pidfile, os.Getpid()); err != nil {
			log.Warningf("Failed to write PID file: %s", process.Strerror(err))
		}
	}
	log.Noticef("Running mode=sentinel, port=%d.", cfg.Server.Port)

	switch supervised {
	case process.SupervisedSystemd:
		if err := process.NotifyReady("Ready to accept connections"); err != nil {
			log.Warningf("Failed to notify systemd: %v", err)
		} else {
			log.Noticef("Supervised by systemd. Please make sure you set appropriate values for TimeoutStartSec and TimeoutStopSec in your service unit.")
		}
	case process.SupervisedUpstart:
		if err := process.UpstartReady(); err != nil {
			log.Warningf("Failed to notify upstart: %v", err)
		}
	}

	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	defer signal.Stop(sigs)
	for {
		select {
		case sig := <-sigs:
			if sig == syscall.SIGHUP {
				if err := log.Reopen(); err != nil {
					log.Warningf("Failed to reopen the log file: %v", err)
				}
				if err := n.ReloadTLS(); err != nil {
					log.Warningf("Failed to reload TLS certificates: %v", err)
				}
				continue
			}
			name := "SIGTERM"
			if sig == syscall.SIGINT {
				name = "SIGINT"
			}
			_ = log.LogFromHandler(logging.LevelWarning, fmt.Sprintf("Received %s scheduling shutdown...", name))
			log.Warning("User requested shutdown...")
		case <-n.ShutdownRequested():
		}
		break
	}
	process.NotifyStopping()
	n.Stop()
	if pidfile != "" {
		log.Notice("Removing the pid file.")
		process.RemovePidfile(pidfile)
	}
	log.Warning("Sentinel is now ready to exit, bye bye...")
	return 0
}

// early prints a log line before the logger exists, in Redis's format
// (before the config, and so log-format, is known).
func early(w io.Writer, msg string) { earlyIn(logging.FormatRedis, w, msg) }

// earlyIn prints a log line before the logger exists, in format.
func earlyIn(format logging.Format, w io.Writer, msg string) {
	if l, err := logging.New(logging.Options{Writer: w, PID: os.Getpid(), Format: format}); err == nil {
		l.Warning(msg)
		return
	}
	fmt.Fprintln(w, msg)
}
