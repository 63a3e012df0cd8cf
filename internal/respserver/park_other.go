//go:build !linux

package respserver

import "net"

// parker is empty where clients are not parked: every client keeps its
// reader goroutine, blocked in Read while it is idle.
type parker struct{}

// canPark reports whether a connection can be parked: never here.
func canPark(net.Conn) bool { return false }

// park never parks here: the caller goes on serving c.
func (s *Server) park(*Client) bool { return false }

// unparkClosed has nothing to do: no client is parked.
func (s *Server) unparkClosed(*Client) {}

// stopParking has nothing to stop.
func (s *Server) stopParking() {}

// releaseParking has nothing to release.
func (s *Server) releaseParking() {}

// parkedClients returns how many clients are parked: none.
func (s *Server) parkedClients() int { return 0 }
