package monitor

import "time"

// Tick advances the core's timers to now. It must be called every
// NextTickIn(); it detects clock jumps (TILT) before anything else, as Redis
// does at the start of each timer run.
func (s *Sentinel) Tick(now time.Time) {
	s.checkTilt(now)
	if s.tilt && now.Sub(s.tiltStart) >= s.timing.TiltPeriod {
		s.tilt = false
		s.emit(LevelWarning, "-tilt", "#tilt mode exited", "")
	}
}

// checkTilt enters TILT when the time since the previous tick is negative
// or longer than TiltTrigger: the process was stopped, the machine was busy
// or the clock jumped, and nothing the timers measured can be trusted.
func (s *Sentinel) checkTilt(now time.Time) {
	if !s.lastTick.IsZero() {
		delta := now.Sub(s.lastTick)
		if delta < 0 || delta > s.timing.TiltTrigger {
			s.tilt = true
			s.tiltStart = now
			s.emit(LevelWarning, "+tilt", "#tilt mode entered", "")
		}
	}
	s.lastTick = now
}

// NextTickIn returns how long to wait before the next Tick: a random
// duration between TickMinInterval and TickMaxInterval, like Redis's
// 10 + rand()%10 Hz timer.
func (s *Sentinel) NextTickIn() time.Duration {
	hz := 10 + s.rnd.Intn(10)
	return time.Second / time.Duration(hz)
}
