package settings

import "time"

// Timing holds the timer periods and thresholds of §2.1 of the reference,
// the values `SENTINEL DEBUG` shows and changes. Every field is a duration
// in milliseconds that must be > 0. They are process-global and never persisted.
type Timing struct {
	InfoPeriodMs             int64
	PingPeriodMs             int64
	AskPeriodMs              int64
	PublishPeriodMs          int64
	DefaultDownAfterMs       int64
	DefaultFailoverTimeoutMs int64
	TiltTriggerMs            int64
	TiltPeriodMs             int64
	SlaveReconfTimeoutMs     int64
	MinLinkReconnectPeriodMs int64
	ElectionTimeoutMs        int64
	ScriptMaxRuntimeMs       int64
	ScriptRetryDelayMs       int64
}

// DefaultTiming returns Redis 7.0's values.
func DefaultTiming() Timing {
	return Timing{
		InfoPeriodMs:             10000,
		PingPeriodMs:             1000,
		AskPeriodMs:              1000,
		PublishPeriodMs:          2000,
		DefaultDownAfterMs:       DefaultDownAfterMs,
		DefaultFailoverTimeoutMs: DefaultFailoverTimeoutMs,
		TiltTriggerMs:            2000,
		TiltPeriodMs:             30000,
		SlaveReconfTimeoutMs:     10000,
		MinLinkReconnectPeriodMs: 15000,
		ElectionTimeoutMs:        10000,
		ScriptMaxRuntimeMs:       60000,
		ScriptRetryDelayMs:       30000,
	}
}

// TickMinInterval and TickMaxInterval bound the randomised period between
// two ticks (Redis runs its timer at 10 + rand()%10 Hz, i.e. 52 to 100 ms),
// so that Sentinels do not ask for votes in lock-step.
const (
	TickMinInterval = 52 * time.Millisecond
	TickMaxInterval = 100 * time.Millisecond
)

// Duration is v milliseconds as a time.Duration: the one conversion for
// the adapters that schedule or display what the settings and the core
// hold in milliseconds.
func Duration(v int64) time.Duration { return time.Duration(v) * time.Millisecond }
