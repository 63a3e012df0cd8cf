package monitor

import (
	"fmt"
	"time"
)

// Input is something that happened outside the core: a reply from an
// instance, a hello, a script's exit, a command from a client (the
// command inputs are in commands.go). Step applies one.
type Input interface{ isInput() }

// Answer is what a command input answers its caller: ResetCount for
// Reset, SimulateFailureHelp for SimulateFailure, gossip.AskReply for
// IsMasterDownByAddr, and nil for every other input (the others answer
// only with their error).
type Answer any

// Step applies one input at time now: every change to the core enters
// here. Errors are values the RESP layer turns into replies; a command
// that fails changes nothing (except where Redis applies a command's
// arguments left to right: Debug, SimulateFailure).
//
// The inputs from links and peers, the frequent ones, record for the
// View what they change (the masters, the shared links); a command may
// change anything and has the next View compare every master.
func (s *Sentinel) Step(now time.Time, in Input) (Answer, error) {
	t := ms(now)
	switch in := in.(type) {
	case CommandReply:
		s.reply(t, in)
	case PubSubMessage:
		s.pubsubMessage(in, t)
	case PubSubActivity:
		if ref, ok := s.links.refs[in.ID]; ok && ref.kind == PubSubLink && ref.link.pc == in.ID {
			ref.link.pcLastActivity = t // no query shows it
		}
	case LinkConnected:
		s.links.connected(in)
	case LinkClosed:
		s.handleLinkClosed(in, t)
	case LinkLocalAddr:
		if ref, ok := s.links.refs[in.ID]; ok && ref.kind == CmdLink && ref.link.cc == in.ID {
			ref.link.localAddr = in.Addr // no query shows it
		}
	case HostResolved:
		s.hostResolved(in) // addresses.go
	case HelloFromClient:
		s.processHello(in.Payload, t)
	case ScriptStarted:
		s.scriptStarted(in) // the View compares the script counts
	case ScriptExited:
		s.scriptExited(in, t)
	case IsMasterDownByAddr:
		return s.answerAsk(t, in.Request), nil
	case Lease:
		return s.answerLease(t, in.Request), nil
	default:
		s.views.changedAll()
		return s.command(t, in)
	}
	return nil, nil
}

// command applies the inputs of Step that may change any master.
func (s *Sentinel) command(t int64, in Input) (Answer, error) {
	switch in := in.(type) {
	case FlushConfig:
		s.out.persist("flushconfig")
	case Shutdown:
		s.out.persist("shutdown")
	case Monitor:
		return nil, s.monitorMaster(t, in)
	case Remove:
		return nil, s.removeMaster(in.Name)
	case Reset:
		return ResetCount(s.resetMasters(t, in.Pattern)), nil
	case Set:
		return nil, s.setOptions(in)
	case ConfigSet:
		return nil, s.configSet(in.Args)
	case Debug:
		return nil, debugSet(&s.timing, in.Args)
	case SimulateFailure:
		help, err := s.simulateFailure(in.Names)
		return SimulateFailureHelp(help), err
	case Failover:
		return nil, s.forceFailover(t, in)
	default:
		return nil, fmt.Errorf("%w: %T", ErrUnknownInput, in)
	}
	return nil, nil
}
