package monitor

import "time"

// The core keeps every time as Unix milliseconds and computes with
// durations in milliseconds, like Redis, so that "0 = never" and `now - t`
// behave as in sentinel.c. The options it is given (settings.Master,
// settings.Timing) are time.Duration values, turned into milliseconds
// where the core computes with them (.Milliseconds()) and back
// (msDuration) where it stores an option.

func ms(t time.Time) int64 { return t.UnixMilli() }

func msDuration(v int64) time.Duration { return time.Duration(v) * time.Millisecond }

// since returns now - t in ms; for t == 0 (never) it is huge.
func since(now, t int64) int64 { return now - t }
