package sim

import (
	"strconv"
	"strings"

	"github.com/go-sentinel/go-sentinel/internal/gossip"
	"github.com/go-sentinel/go-sentinel/internal/monitor"
)

// sentinelCommand executes one command a Sentinel sent to another
// Sentinel node: PING, PUBLISH of a hello, SENTINEL is-master-down-by-addr.
func (c *Cluster) sentinelCommand(n *Node, args []string) monitor.Reply {
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
		c.step(n, monitor.HelloFromClient{Payload: args[2]})
		return intReply(1)
	case "SENTINEL":
		if len(args) == 6 && strings.EqualFold(args[1], "is-master-down-by-addr") {
			port, err1 := strconv.ParseInt(args[3], 10, 64)
			epoch, err2 := strconv.ParseInt(args[4], 10, 64)
			if err1 != nil || err2 != nil {
				return errReply("ERR value is not an integer or out of range")
			}
			r := n.Core.IsMasterDownByAddr(n.Now(), args[2], int(port), uint64(epoch), args[5])
			c.drain(n)
			down := int64(0)
			if r.Down {
				down = 1
			}
			return arrayReply(intReply(down), bulk(r.Leader), intReply(int64(r.LeaderEpoch)))
		}
		return errReply("ERR Unknown subcommand or wrong number of arguments")
	}
	return errReply("ERR unknown command '" + args[0] + "'")
}
