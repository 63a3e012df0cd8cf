package monitor

import "time"

// The core keeps every time as Unix milliseconds and every duration as
// milliseconds, like Redis, so that "0 = never" and `now - t` behave as in
// sentinel.c.

func ms(t time.Time) int64 { return t.UnixMilli() }

func msDuration(v int64) time.Duration { return time.Duration(v) * time.Millisecond }

// since returns now - t in ms; for t == 0 (never) it is huge.
func since(now, t int64) int64 { return now - t }
