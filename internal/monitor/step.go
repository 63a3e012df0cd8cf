package monitor

import (
	"fmt"
	"strings"
	"time"
)

// FlushConfig asks for the config to be rewritten (SENTINEL FLUSHCONFIG).
type FlushConfig struct{}

// Shutdown tells the core the process is stopping; it persists its state.
type Shutdown struct{}

func (FlushConfig) isInput() {}
func (Shutdown) isInput()    {}

// Input is something that happened outside the core: a reply from an
// instance, a hello, a command from a client. Step applies one.
type Input interface{ isInput() }

// Step applies one input at time now. Errors are values the RESP layer
// turns into replies; a failed Step changes nothing.
func (s *Sentinel) Step(now time.Time, in Input) error {
	t := ms(now)
	switch in := in.(type) {
	case CommandReply:
		s.reply(t, in)
	case PubSubMessage:
		s.pubsubMessage(in, t)
	case PubSubActivity:
		if ref, ok := s.links[in.ID]; ok && ref.kind == PubSubLink && ref.link.pc == in.ID {
			ref.link.pcLastActivity = t
		}
	case LinkConnected:
		s.handleLinkConnected(in)
	case LinkClosed:
		s.handleLinkClosed(in, t)
	case LinkLocalAddr:
		if ref, ok := s.links[in.ID]; ok && ref.kind == CmdLink && ref.link.cc == in.ID {
			ref.link.localAddr = in.Addr
		}
	case HostResolved:
		if s.resolved == nil {
			s.resolved = map[string]string{}
		}
		s.resolved[strings.ToLower(in.Host)] = in.IP
	case HelloFromClient:
		s.processHello(in.Payload, t)
	case ScriptStarted:
		s.scriptStarted(in)
	case ScriptExited:
		s.scriptExited(in, t)
	case FlushConfig:
		s.persist("flushconfig")
	case Shutdown:
		s.persist("shutdown")
	default:
		return fmt.Errorf("%w: %T", ErrUnknownInput, in)
	}
	return nil
}
