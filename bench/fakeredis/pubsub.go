package fakeredis

import (
	"strings"
	"sync"
	"time"

	"github.com/tidwall/redcon"
)

// writeTimeout bounds a write to a subscriber, so that one that stopped
// reading cannot stall its publishers for long.
const writeTimeout = time.Second

// subscriber is a connection in subscribed mode. It is detached from redcon:
// its own goroutine reads its commands, and publishers write to it under mu.
type subscriber struct {
	mu       sync.Mutex
	dc       redcon.DetachedConn
	channels map[string]struct{} // owned by the reading goroutine
}

// subscribe switches c to subscribed mode and subscribes it to channels.
func (i *Instance) subscribe(c *client, conn redcon.Conn, channels [][]byte) {
	if len(channels) == 0 {
		conn.WriteError("ERR wrong number of arguments for 'subscribe' command")
		return
	}
	c.subscribed = true
	s := &subscriber{channels: make(map[string]struct{})}
	f := i.fleet
	f.mu.Lock()
	c.sub = s
	f.mu.Unlock()
	s.mu.Lock()
	s.dc = conn.Detach()
	i.addChannels(c, channels)
	err := s.flush()
	s.mu.Unlock()
	if err != nil {
		i.dropSubscriber(c)
		return
	}
	go i.readSubscribed(c)
}

// addChannels subscribes c to channels and writes one confirmation each.
// The caller holds c.sub.mu.
func (i *Instance) addChannels(c *client, channels [][]byte) {
	s := c.sub
	f := i.fleet
	for _, b := range channels {
		ch := string(b)
		s.channels[ch] = struct{}{}
		f.mu.Lock()
		if i.alive {
			set := i.subs[ch]
			if set == nil {
				set = make(map[*client]struct{})
				i.subs[ch] = set
			}
			set[c] = struct{}{}
		}
		f.mu.Unlock()
		s.dc.WriteArray(3)
		s.dc.WriteBulkString("subscribe")
		s.dc.WriteBulkString(ch)
		s.dc.WriteInt(len(s.channels))
	}
}

// readSubscribed serves the commands a subscribed connection may send until
// it is closed.
func (i *Instance) readSubscribed(c *client) {
	s := c.sub
	defer i.dropSubscriber(c)
	for {
		cmd, err := s.dc.ReadCommand()
		if err != nil || len(cmd.Args) == 0 {
			return
		}
		s.mu.Lock()
		switch strings.ToUpper(string(cmd.Args[0])) {
		case "SUBSCRIBE":
			i.addChannels(c, cmd.Args[1:])
		case "UNSUBSCRIBE":
			i.removeChannels(c, cmd.Args[1:])
		case "PING":
			s.dc.WriteArray(2)
			s.dc.WriteBulkString("pong")
			if len(cmd.Args) > 1 {
				s.dc.WriteBulk(cmd.Args[1])
			} else {
				s.dc.WriteBulkString("")
			}
		case "QUIT":
			s.dc.WriteString("OK")
			_ = s.flush()
			s.mu.Unlock()
			return
		default:
			s.dc.WriteError("ERR Can't execute '" + strings.ToLower(string(cmd.Args[0])) +
				"': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context")
		}
		err = s.flush()
		s.mu.Unlock()
		if err != nil {
			return
		}
	}
}

// removeChannels unsubscribes c from channels (all of them when none are
// named) and writes one confirmation each. The caller holds c.sub.mu.
func (i *Instance) removeChannels(c *client, channels [][]byte) {
	s := c.sub
	names := make([]string, 0, len(channels))
	for _, b := range channels {
		names = append(names, string(b))
	}
	if len(names) == 0 {
		for ch := range s.channels {
			names = append(names, ch)
		}
	}
	f := i.fleet
	for _, ch := range names {
		delete(s.channels, ch)
		f.mu.Lock()
		delete(i.subs[ch], c)
		f.mu.Unlock()
		s.dc.WriteArray(3)
		s.dc.WriteBulkString("unsubscribe")
		s.dc.WriteBulkString(ch)
		s.dc.WriteInt(len(s.channels))
	}
}

// dropSubscriber closes a subscribed connection and forgets it.
func (i *Instance) dropSubscriber(c *client) {
	_ = c.nc.Close()
	i.forget(c)
}

// publish delivers payload on channel to the instance's subscribers and, on
// a master, to those of its live replicas (replication carries PUBLISH). It
// returns the number of the instance's own receivers, as Redis does.
func (i *Instance) publish(channel string, payload []byte) int {
	f := i.fleet
	f.mu.Lock()
	var local, remote []*client
	for c := range i.subs[channel] {
		local = append(local, c)
	}
	if i.alive && i.master == "" {
		for _, r := range f.replicasOf(i) {
			for c := range r.subs[channel] {
				remote = append(remote, c)
			}
		}
	}
	f.mu.Unlock()
	for _, c := range append(local, remote...) {
		c.sub.deliver(channel, payload)
	}
	return len(local)
}

// deliver writes one message to the subscriber; a failed write closes it.
func (s *subscriber) deliver(channel string, payload []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dc.WriteArray(3)
	s.dc.WriteBulkString("message")
	s.dc.WriteBulkString(channel)
	s.dc.WriteBulk(payload)
	if err := s.flush(); err != nil {
		_ = s.dc.NetConn().Close()
	}
}

// flush writes what is buffered, within writeTimeout. The caller holds mu.
func (s *subscriber) flush() error {
	nc := s.dc.NetConn()
	_ = nc.SetWriteDeadline(time.Now().Add(writeTimeout))
	return s.dc.Flush()
}
