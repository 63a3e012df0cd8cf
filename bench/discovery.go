package main

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// masterView is what one Sentinel reports about one master.
type masterView struct {
	port      int
	replicas  int // num-slaves
	sentinels int // num-other-sentinels
	flags     string
}

// sentinelMasters asks a Sentinel for SENTINEL MASTERS.
func sentinelMasters(ctx context.Context, c *redis.Client) (map[string]masterView, error) {
	v, err := c.Do(ctx, "SENTINEL", "MASTERS").Slice()
	if err != nil {
		return nil, err
	}
	out := make(map[string]masterView, len(v))
	for _, e := range v {
		fields, ok := e.([]any)
		if !ok {
			return nil, fmt.Errorf("SENTINEL MASTERS: element %T", e)
		}
		var name string
		var mv masterView
		for k := 0; k+1 < len(fields); k += 2 {
			key, _ := fields[k].(string)
			val, _ := fields[k+1].(string)
			switch key {
			case "name":
				name = val
			case "port":
				mv.port, _ = strconv.Atoi(val)
			case "num-slaves":
				mv.replicas, _ = strconv.Atoi(val)
			case "num-other-sentinels":
				mv.sentinels, _ = strconv.Atoi(val)
			case "flags":
				mv.flags = val
			}
		}
		out[name] = mv
	}
	return out, nil
}

// waitDiscovery polls every Sentinel until each knows, for every master,
// at least replicas replicas and every other Sentinel. It returns when that
// first held.
func waitDiscovery(ports []int, masters []monitored, replicas int, every, timeout time.Duration) (time.Time, error) {
	clients := make([]*redis.Client, len(ports))
	for k, p := range ports {
		clients[k] = newClient(p)
		defer clients[k].Close()
	}
	done := make([]bool, len(ports))
	deadline := time.Now().Add(timeout)
	for {
		all := true
		for k, c := range clients {
			if done[k] {
				continue
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			views, err := sentinelMasters(ctx, c)
			cancel()
			done[k] = err == nil && knowsAll(views, masters, replicas, len(ports)-1)
			all = all && done[k]
		}
		if all {
			return time.Now(), nil
		}
		if time.Now().After(deadline) {
			return time.Time{}, fmt.Errorf("discovery not complete after %v", timeout)
		}
		time.Sleep(every)
	}
}

func knowsAll(views map[string]masterView, masters []monitored, replicas, peers int) bool {
	for _, m := range masters {
		v, ok := views[m.name]
		if !ok || v.replicas < replicas || v.sentinels < peers {
			return false
		}
	}
	return true
}
