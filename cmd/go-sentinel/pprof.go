package main

import (
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"runtime"
)

// pprofEnv names the environment variable that, when set to a listen
// address (e.g. 127.0.0.1:6060), makes the daemon serve the Go profiler at
// http://ADDR/debug/pprof/. It is a hidden opt-in for benchmarks and
// debugging: there is no config directive, and the endpoint has no
// authentication, so it should only ever listen on loopback.
const pprofEnv = "GO_SENTINEL_PPROF"

// pprofMemRate is the heap sampling rate (bytes per sample) while the
// profiler is on: finer than Go's default 512 KiB, so that the heap profile
// of a small daemon is precise.
const pprofMemRate = 4096

// startPprof serves net/http/pprof on the address in GO_SENTINEL_PPROF, if
// any, and samples the heap every pprofMemRate bytes from then on. It
// returns the address it listens on, "" when the variable is unset,
// or the error of the listen.
func startPprof() (string, error) {
	addr := os.Getenv(pprofEnv)
	if addr == "" {
		return "", nil
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", err
	}
	runtime.MemProfileRate = pprofMemRate
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	go func() { _ = http.Serve(ln, mux) }()
	return ln.Addr().String(), nil
}
