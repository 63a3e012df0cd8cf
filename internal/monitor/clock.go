package monitor

import (
	"time"

	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// The core keeps every instant as Unix milliseconds and every duration
// in milliseconds, like Redis, so that "0 = never" and `now - t` behave
// as in sentinel.c. The options it is given are in milliseconds too
// (settings.Master, settings.Timing, settings.Accel: the fields end in Ms), and so
// are the leaves it asks (election, failover, gossip, fence) and the
// View it builds (internal/view). What it and the View hand the adapters
// to schedule or display (NextTickIn, MetricsView, the timeline's marks,
// View.ProxyRoute, View.Tilt) is a time.Duration or a time.Time,
// converted where it is handed out (msDuration, settings.Duration,
// time.UnixMilli).

func ms(t time.Time) int64 { return t.UnixMilli() }

func msDuration(v int64) time.Duration { return settings.Duration(v) }

// since returns now - t in ms; for t == 0 (never) it is huge.
func since(now, t int64) int64 { return now - t }
