package fakeredis

import "strings"

// subscribedMode reports whether c has subscribed (and not left every
// channel): it then takes only the pub/sub commands.
func (c *client) subscribedMode() bool {
	f := c.inst.fleet
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(c.channels) > 0 && !c.resp3 // RESP3 takes any command
}

// isResp3 reports whether c chose RESP3 (HELLO 3).
func (c *client) isResp3() bool {
	f := c.inst.fleet
	f.mu.Lock()
	defer f.mu.Unlock()
	return c.resp3
}

// pushLen starts a pub/sub reply of n elements: an array over RESP2, a
// push over RESP3.
func (r *reply) pushLen(n int, resp3 bool) {
	if resp3 {
		r.push(n)
	} else {
		r.array(n)
	}
}

// subscribedCommand serves a command of a subscribed connection.
func (i *Instance) subscribedCommand(c *client, name string, args [][]byte) (quit bool) {
	out := &c.out
	switch name {
	case "SUBSCRIBE":
		i.subscribe(c, args[1:])
	case "UNSUBSCRIBE":
		i.unsubscribe(c, args[1:])
	case "PING":
		out.array(2)
		out.bulk("pong")
		if len(args) > 1 {
			out.bulk(string(args[1]))
		} else {
			out.bulk("")
		}
	case "QUIT":
		out.status("OK")
		return true
	default:
		out.err("ERR Can't execute '" + strings.ToLower(name) +
			"': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context")
	}
	return false
}

// subscribe subscribes c to channels, with one confirmation each.
func (i *Instance) subscribe(c *client, channels [][]byte) {
	if len(channels) == 0 {
		c.out.err("ERR wrong number of arguments for 'subscribe' command")
		return
	}
	f := i.fleet
	for _, b := range channels {
		ch := string(b)
		f.mu.Lock()
		if c.channels == nil {
			c.channels = make(map[string]struct{})
		}
		c.channels[ch] = struct{}{}
		if i.alive {
			set := i.subs[ch]
			if set == nil {
				set = make(map[*client]struct{})
				i.subs[ch] = set
			}
			set[c] = struct{}{}
		}
		n := len(c.channels)
		resp3 := c.resp3
		f.mu.Unlock()
		c.out.pushLen(3, resp3)
		c.out.bulk("subscribe")
		c.out.bulk(ch)
		c.out.int(int64(n))
	}
}

// unsubscribe unsubscribes c from channels (all of them when none are
// named), with one confirmation each.
func (i *Instance) unsubscribe(c *client, channels [][]byte) {
	f := i.fleet
	f.mu.Lock()
	names := make([]string, 0, len(channels))
	for _, b := range channels {
		names = append(names, string(b))
	}
	if len(names) == 0 {
		for ch := range c.channels {
			names = append(names, ch)
		}
	}
	counts := make([]int, len(names))
	for k, ch := range names {
		delete(c.channels, ch)
		delete(i.subs[ch], c)
		counts[k] = len(c.channels)
	}
	resp3 := c.resp3
	f.mu.Unlock()
	for k, ch := range names {
		c.out.pushLen(3, resp3)
		c.out.bulk("unsubscribe")
		c.out.bulk(ch)
		c.out.int(int64(counts[k]))
	}
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
	var msg, push reply
	msg.array(3)
	push.push(3)
	for _, r := range []*reply{&msg, &push} {
		r.bulk("message")
		r.bulk(channel)
		r.bulk(string(payload))
	}
	all := append(local, remote...)
	resp3 := make([]bool, len(all))
	f.mu.Lock()
	for k, c := range all {
		resp3[k] = c.resp3
	}
	f.mu.Unlock()
	for k, c := range all {
		out := msg
		if resp3[k] {
			out = push
		}
		if !c.write(out, true) {
			_ = c.nc.Close()
		}
	}
	return len(local)
}
