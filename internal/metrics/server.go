package metrics

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Path is where the metrics are served; any other path is 404.
const Path = "/metrics"

// Server serves a Metrics over HTTP on one address (`metrics-addr`).
type Server struct {
	ln     net.Listener
	srv    *http.Server
	done   chan struct{}
	once   sync.Once
	served atomic.Bool
}

// Listen binds addr (host:port) for m; it fails without side effects when
// the address cannot be bound, so the daemon can refuse to start as it
// does for its own port. Serve starts answering.
func Listen(addr string, m *Metrics) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("metrics-addr %s: %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle(Path, promhttp.HandlerFor(m.Registry(), promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError}))
	return &Server{
		ln: ln,
		srv: &http.Server{
			Handler:           mux,
			ReadHeaderTimeout: 10 * time.Second,
			// A scrape waits for the core's loop; a slow client must not
			// hold a connection forever.
			WriteTimeout: 30 * time.Second,
			IdleTimeout:  2 * time.Minute,
		},
		done: make(chan struct{}),
	}, nil
}

// Addr is the address listened on.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// Serve answers scrapes until Close; it returns at once. It must be
// called at most once.
func (s *Server) Serve() {
	s.served.Store(true)
	go func() {
		defer close(s.done)
		// Serve only returns when the listener is closed (Close).
		_ = s.srv.Serve(s.ln)
	}()
}

// Close stops listening, ends open connections (letting a scrape in
// progress finish for up to a second) and waits for Serve's goroutine.
// It is safe to call more than once, and without Serve.
func (s *Server) Close() {
	s.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		if err := s.srv.Shutdown(ctx); err != nil {
			_ = s.srv.Close()
		}
		_ = s.ln.Close()
		if s.served.Load() {
			<-s.done
		}
	})
}
