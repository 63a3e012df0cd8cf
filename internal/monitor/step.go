package monitor

import (
	"fmt"
	"time"
)

// Input is something that happened outside the core: a reply from an
// instance, a hello, a command from a client. Step applies one.
type Input interface{ isInput() }

// FlushConfig asks for the config to be rewritten (SENTINEL FLUSHCONFIG).
type FlushConfig struct{}

// Shutdown tells the core the process is stopping; it persists its state.
type Shutdown struct{}

func (FlushConfig) isInput() {}
func (Shutdown) isInput()    {}

// Step applies one input at time now. Errors are values the RESP layer
// turns into replies; a failed Step changes nothing.
func (s *Sentinel) Step(now time.Time, in Input) error {
	switch in := in.(type) {
	case FlushConfig:
		s.persist("flushconfig")
	case Shutdown:
		s.persist("shutdown")
	default:
		return fmt.Errorf("%w: %T", ErrUnknownInput, in)
	}
	return nil
}
