package monitor

import (
	"fmt"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/msg"
)

// Step applies one input at time now: every change to the core enters
// here. Errors are values the RESP layer turns into replies; a command
// that fails changes nothing (except where Redis applies a command's
// arguments left to right: Debug, SimulateFailure).
//
// The inputs from links and peers, the frequent ones, record for the
// View what they change (the masters, the shared links); a command may
// change anything and has the next View compare every master.
func (s *Sentinel) Step(now time.Time, in msg.Input) (msg.Answer, error) {
	t := ms(now)
	switch in := in.(type) {
	case msg.CommandReply:
		s.reply(t, in)
	case msg.PubSubMessage:
		s.pubsubMessage(in, t)
	case msg.PubSubActivity:
		if ref, ok := s.links.refs[in.ID]; ok && ref.kind == msg.PubSubLink && ref.link.pc == in.ID {
			ref.link.pcLastActivity = t // no query shows it
		}
	case msg.LinkConnected:
		s.links.connected(in)
	case msg.LinkClosed:
		s.handleLinkClosed(in, t)
	case msg.LinkLocalAddr:
		if ref, ok := s.links.refs[in.ID]; ok && ref.kind == msg.CmdLink && ref.link.cc == in.ID {
			ref.link.localAddr = in.Addr // no query shows it
		}
	case msg.HostResolved:
		s.hostResolved(in) // addresses.go
	case msg.HelloFromClient:
		s.processHello(in.Payload, t)
	case msg.ScriptStarted:
		s.scriptStarted(in) // the View compares the script counts
	case msg.ScriptExited:
		s.scriptExited(in, t)
	case msg.IsMasterDownByAddr:
		return s.answerAsk(t, in.Request), nil
	case msg.Lease:
		return s.answerLease(t, in.Request), nil
	default:
		s.views.changedAll()
		return s.command(t, in)
	}
	return nil, nil
}

// command applies the inputs of Step that may change any master.
func (s *Sentinel) command(t int64, in msg.Input) (msg.Answer, error) {
	switch in := in.(type) {
	case msg.FlushConfig:
		s.out.persist("flushconfig")
	case msg.Shutdown:
		s.out.persist("shutdown")
	case msg.Monitor:
		return nil, s.monitorMaster(t, in)
	case msg.Remove:
		return nil, s.removeMaster(in.Name)
	case msg.Reset:
		return msg.ResetCount(s.resetMasters(t, in.Pattern)), nil
	case msg.Set:
		return nil, s.setOptions(in)
	case msg.ConfigSet:
		return nil, s.configSet(in.Args)
	case msg.Debug:
		return nil, debugSet(&s.timing, in.Args)
	case msg.SimulateFailure:
		help, err := s.simulateFailure(in.Names)
		return msg.SimulateFailureHelp(help), err
	case msg.Failover:
		return nil, s.forceFailover(t, in)
	default:
		return nil, fmt.Errorf("%w: %T", ErrUnknownInput, in)
	}
	return nil, nil
}
