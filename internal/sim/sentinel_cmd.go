package sim

import (
	"strings"

	"github.com/go-sentinel/go-sentinel/internal/gossip"
	"github.com/go-sentinel/go-sentinel/internal/msg"
)

// sentinelCommand executes one command a Sentinel sent to another
// Sentinel node: PING, PUBLISH of a hello, SENTINEL is-master-down-by-addr.
func (c *Cluster) sentinelCommand(n *Node, args []string) msg.Reply {
	switch strings.ToUpper(args[0]) {
	case "PING":
		return status("PONG")
	case "PUBLISH":
		if len(args) != 3 {
			return errWrongArgs(args[0])
		}
		if args[1] != gossip.Channel {
			return errReply("ERR Only HELLO messages are accepted by Sentinel instances.")
		}
		c.step(n, msg.HelloFromClient{Payload: args[2]})
		return intReply(1)
	case "SENTINEL":
		if len(args) == 6 && strings.EqualFold(args[1], "is-master-down-by-addr") {
			req, err := gossip.ParseAskRequest(args[2], args[3], args[4], args[5])
			if err != nil {
				return errReply("ERR " + err.Error())
			}
			// The daemon answers an ask without a vote from the View:
			// every such answer here is checked against the core's.
			fromView, viewAnswers := n.Core.View().AnswerAsk(req)
			ans, err := n.Core.Step(n.Now(), msg.IsMasterDownByAddr{Request: req})
			if err != nil {
				c.fail("%s: IsMasterDownByAddr: %v", n.Name, err)
			}
			if viewAnswers && fromView != ans.(gossip.AskReply) {
				c.fail("%s: IS-MASTER-DOWN-BY-ADDR %v: the View answers %+v, the core %+v", n.Name, req, fromView, ans)
			}
			c.drain(n)
			down, leader, epoch := ans.(gossip.AskReply).Elements()
			return arrayReply(intReply(down), bulk(leader), intReply(epoch))
		}
		if len(args) >= 2 && strings.EqualFold(args[1], gossip.LeaseSubcommand) {
			req, err := gossip.ParseLeaseRequest(args[2:])
			if err != nil {
				return errReply("ERR " + err.Error())
			}
			ans, err := n.Core.Step(n.Now(), msg.Lease{Request: req})
			if err != nil {
				c.fail("%s: Lease: %v", n.Name, err)
			}
			c.drain(n)
			granted := ans.(msg.LeaseAnswer)
			elems := make([]msg.Reply, len(granted))
			for k, g := range granted {
				elems[k] = intReply(0)
				if g {
					elems[k] = intReply(1)
				}
			}
			return arrayReply(elems...)
		}
		return errReply("ERR Unknown subcommand or wrong number of arguments")
	}
	return errReply("ERR unknown command '" + args[0] + "'")
}
