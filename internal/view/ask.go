package view

import (
	"github.com/go-sentinel/go-sentinel/internal/gossip"
	"github.com/go-sentinel/go-sentinel/internal/object"
	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// AnswerAsk answers an IS-MASTER-DOWN-BY-ADDR that asks for no vote (its
// run id is "*") from the View, as the core's Step would: such an ask
// changes nothing, and answered here it never waits for the loop. When a
// rack dies, a peer asks about each dead master every ask period on one
// connection, and each ask that waited for a busy loop held back the
// next ask and the PINGs behind it: ODOWN was lost for want of answers,
// and Sentinels were marked down (issue 19). It reports false, and
// answers nothing, for an ask that asks for a vote: a vote goes to disk,
// and through Step.
func (v *View) AnswerAsk(req gossip.AskRequest) (gossip.AskReply, bool) {
	if req.AsksVote() {
		return gossip.AskReply{}, false
	}
	rep := gossip.NoVoteReply()
	for mv := range v.all() {
		if AsksAbout(req, v.Resolved, mv.AskAddr) {
			rep.Down = gossip.AnswerDown(mv.Inst.Flags&object.SDown != 0, v.InTilt)
			break
		}
	}
	return rep, true
}

// AsksAbout reports whether req asks about the master at a: the same
// port and the host as a names it or as it resolved (resolved is the
// Sentinel's hostname table), for the core's answer and View.AnswerAsk
// alike.
func AsksAbout(req gossip.AskRequest, resolved map[string]string, a settings.Addr) bool {
	return a.Port == req.Port && settings.AddrMatchesHost(resolved, a, req.IP)
}
