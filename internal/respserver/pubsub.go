package respserver

import (
	"sort"
	"sync"

	"github.com/go-sentinel/go-sentinel/internal/glob"
)

// hub routes published events to subscribed clients. Channels and patterns
// are case-sensitive; patterns use Redis glob rules.
type hub struct {
	mu       sync.RWMutex
	channels map[string]map[*Client]bool
	patterns map[string]map[*Client]bool
}

func newHub() *hub {
	return &hub{channels: map[string]map[*Client]bool{}, patterns: map[string]map[*Client]bool{}}
}

func (h *hub) publish(channel, msg string) int {
	h.mu.RLock()
	defer h.mu.RUnlock()
	n := 0
	for c := range h.channels[channel] {
		c.send(Push{Bulk("message"), Bulk(channel), Bulk(msg)})
		n++
	}
	for p, set := range h.patterns {
		if !glob.Match(p, channel, false) {
			continue
		}
		for c := range set {
			c.send(Push{Bulk("pmessage"), Bulk(p), Bulk(channel), Bulk(msg)})
			n++
		}
	}
	return n
}

// subscribe adds c to name (a channel, or a pattern when pattern is set)
// and returns the client's subscription count afterwards.
func (h *hub) subscribe(c *Client, name string, pattern bool) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	table, mine := h.channels, &c.channels
	if pattern {
		table, mine = h.patterns, &c.patterns
	}
	if table[name] == nil {
		table[name] = map[*Client]bool{}
	}
	table[name][c] = true
	c.mu.Lock()
	if *mine == nil {
		*mine = map[string]bool{}
	}
	(*mine)[name] = true
	n := c.subscriptions()
	c.pubsubMode.Store(n > 0)
	c.mu.Unlock()
	return n
}

func (h *hub) unsubscribe(c *Client, name string, pattern bool) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	table, mine := h.channels, c.channels
	if pattern {
		table, mine = h.patterns, c.patterns
	}
	if set := table[name]; set != nil {
		delete(set, c)
		if len(set) == 0 {
			delete(table, name)
		}
	}
	c.mu.Lock()
	delete(mine, name)
	n := c.subscriptions()
	c.pubsubMode.Store(n > 0)
	c.mu.Unlock()
	return n
}

// names returns the client's channels or patterns, sorted for stable
// replies.
func (h *hub) names(c *Client, pattern bool) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	mine := c.channels
	if pattern {
		mine = c.patterns
	}
	out := make([]string, 0, len(mine))
	for n := range mine {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

func (h *hub) unsubscribeAll(c *Client) {
	for _, n := range h.names(c, false) {
		h.unsubscribe(c, n, false)
	}
	for _, n := range h.names(c, true) {
		h.unsubscribe(c, n, true)
	}
}

func cmdSubscribe(x *ctx) Value {
	kind := "subscribe"
	pattern := x.name == "psubscribe"
	if pattern {
		kind = "psubscribe"
	}
	for _, a := range x.args[1:] {
		n := x.srv.hub.subscribe(x.c, string(a), pattern)
		x.c.send(Push{Bulk(kind), Bulk(a), Int(n)})
	}
	return noReply{}
}

func cmdUnsubscribe(x *ctx) Value {
	kind := "unsubscribe"
	pattern := x.name == "punsubscribe"
	if pattern {
		kind = "punsubscribe"
	}
	names := make([]string, 0, len(x.args)-1)
	for _, a := range x.args[1:] {
		names = append(names, string(a))
	}
	if len(names) == 0 {
		names = x.srv.hub.names(x.c, pattern)
		if len(names) == 0 {
			x.c.mu.Lock()
			n := x.c.subscriptions()
			x.c.mu.Unlock()
			return Push{Bulk(kind), Null{}, Int(n)}
		}
	}
	for _, n := range names {
		cnt := x.srv.hub.unsubscribe(x.c, n, pattern)
		x.c.send(Push{Bulk(kind), Bulk(n), Int(cnt)})
	}
	return noReply{}
}
