package main

import (
	"bytes"
	"net"
	"regexp"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// replicaRelay is a TCP relay in front of a master: everything that dials
// the master (Sentinels, replicas) goes through it, and it can hold back
// the replication stream to one replica, named by the port its REPLCONF
// listening-port gives. That replica then lags while it still answers
// reads, reports role:slave and master_link_status:up (until its
// repl-timeout, 60 s), and acknowledges the offset it stopped at: what a
// replica behind a slow or congested link looks like.
type replicaRelay struct {
	ln     net.Listener
	target string

	mu     sync.Mutex
	held   map[int]bool
	conns  []net.Conn
	closed bool
}

// listeningPort finds the port of REPLCONF listening-port in the first
// bytes a replica sends.
var listeningPort = regexp.MustCompile(`(?i)listening-port\r\n\$\d+\r\n(\d+)\r\n`)

// startRelay listens on port and relays every connection to target.
func startRelay(port, target int) (*replicaRelay, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		return nil, err
	}
	r := &replicaRelay{ln: ln, target: "127.0.0.1:" + strconv.Itoa(target), held: map[int]bool{}}
	go r.accept()
	return r, nil
}

// hold holds back (or, with on false, lets go) the stream to the replica
// listening on port.
func (r *replicaRelay) hold(port int, on bool) {
	r.mu.Lock()
	r.held[port] = on
	r.mu.Unlock()
}

// isHeld reports whether the stream to the replica on port is held back.
func (r *replicaRelay) isHeld(port int64) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return port != 0 && r.held[int(port)] && !r.closed
}

// close stops the relay and closes every connection.
func (r *replicaRelay) close() {
	r.mu.Lock()
	r.closed = true
	cs := r.conns
	r.mu.Unlock()
	_ = r.ln.Close()
	for _, c := range cs {
		_ = c.Close()
	}
}

// accept serves each connection the relay accepts.
func (r *replicaRelay) accept() {
	for {
		c, err := r.ln.Accept()
		if err != nil {
			return
		}
		go r.serve(c)
	}
}

// serve joins c to the target: its bytes go through as they come, the
// target's wait while they go to a replica held back.
func (r *replicaRelay) serve(c net.Conn) {
	s, err := net.Dial("tcp", r.target)
	if err != nil {
		_ = c.Close()
		return
	}
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		_ = c.Close()
		_ = s.Close()
		return
	}
	r.conns = append(r.conns, c, s)
	r.mu.Unlock()
	var replica atomic.Int64 // the replica's listening port, once known
	go func() {
		defer c.Close()
		defer s.Close()
		var head []byte
		buf := make([]byte, 32<<10)
		for {
			n, err := c.Read(buf)
			if n > 0 {
				if replica.Load() == 0 && len(head) < 4096 {
					head = append(head, buf[:n]...)
					if m := listeningPort.FindSubmatch(head); m != nil {
						p, _ := strconv.Atoi(string(bytes.TrimSpace(m[1])))
						replica.Store(int64(p))
					}
				}
				if _, werr := s.Write(buf[:n]); werr != nil {
					return
				}
			}
			if err != nil {
				return
			}
		}
	}()
	defer c.Close()
	defer s.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := s.Read(buf)
		for n > 0 && r.isHeld(replica.Load()) {
			time.Sleep(5 * time.Millisecond)
		}
		if n > 0 {
			if _, werr := c.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}
