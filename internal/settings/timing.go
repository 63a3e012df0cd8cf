package settings

import "time"

// Timing holds the timer periods and thresholds of §2.1 of the reference,
// the values `SENTINEL DEBUG` shows and changes. Every field is a duration
// that must be > 0. They are process-global and never persisted.
type Timing struct {
	InfoPeriod             time.Duration
	PingPeriod             time.Duration
	AskPeriod              time.Duration
	PublishPeriod          time.Duration
	DefaultDownAfter       time.Duration
	DefaultFailoverTimeout time.Duration
	TiltTrigger            time.Duration
	TiltPeriod             time.Duration
	SlaveReconfTimeout     time.Duration
	MinLinkReconnectPeriod time.Duration
	ElectionTimeout        time.Duration
	ScriptMaxRuntime       time.Duration
	ScriptRetryDelay       time.Duration
}

// DefaultTiming returns Redis 7.0's values.
func DefaultTiming() Timing {
	return Timing{
		InfoPeriod:             10 * time.Second,
		PingPeriod:             time.Second,
		AskPeriod:              time.Second,
		PublishPeriod:          2 * time.Second,
		DefaultDownAfter:       DefaultDownAfter,
		DefaultFailoverTimeout: DefaultFailoverTimeout,
		TiltTrigger:            2 * time.Second,
		TiltPeriod:             30 * time.Second,
		SlaveReconfTimeout:     10 * time.Second,
		MinLinkReconnectPeriod: 15 * time.Second,
		ElectionTimeout:        10 * time.Second,
		ScriptMaxRuntime:       time.Minute,
		ScriptRetryDelay:       30 * time.Second,
	}
}

// TickMinInterval and TickMaxInterval bound the randomised period between
// two ticks (Redis runs its timer at 10 + rand()%10 Hz, i.e. 52 to 100 ms),
// so that Sentinels do not ask for votes in lock-step.
const (
	TickMinInterval = 52 * time.Millisecond
	TickMaxInterval = 100 * time.Millisecond
)
