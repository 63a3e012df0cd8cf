package msg

import "github.com/go-sentinel/go-sentinel/internal/settings"

// LinkID names one connection attempt to an instance. The core gives every
// OpenLink a new id, so a reply or a close that arrives for an id the core
// no longer uses (the link was closed and reopened meanwhile) is ignored.
type LinkID uint64

// LinkKind tells the command connection from the pub/sub one.
type LinkKind int

// The two kinds of connection Sentinel keeps to an instance: every kind of
// instance has a command link; masters and replicas also have a pub/sub
// link subscribed to the hello channel.
const (
	CmdLink LinkKind = iota
	PubSubLink
)

func (k LinkKind) String() string {
	if k == PubSubLink {
		return "pubsub"
	}
	return "cmd"
}

// Auth is the credentials a link sends right after connecting. Pass == ""
// means send no AUTH at all; User == "" means `AUTH <pass>`.
type Auth struct {
	User string
	Pass string
}

// OpenLink asks the link adapter to connect to Addr. Connecting is
// asynchronous: the adapter reports LinkConnected once the connection is
// established and LinkClosed if it fails or ends; Sends may be issued at
// once and are written after the connect. On connect
// the adapter sends, pipelined and ignoring their replies, `AUTH` (if
// Auth.Pass is set) and `CLIENT SETNAME <ClientName>`, and on a pub/sub
// link `SUBSCRIBE <Channel>`. Renames maps upper-case command names to the
// names the instance knows them by (rename-command); it applies to AUTH,
// CLIENT and SUBSCRIBE.
type OpenLink struct {
	ID         LinkID
	Kind       LinkKind
	Addr       settings.Addr
	Auth       Auth
	ClientName string
	Channel    string // pub/sub links only
	Renames    map[string]string
}

// CloseLink asks the adapter to drop a connection. Outstanding commands
// are abandoned; no LinkClosed follows.
type CloseLink struct {
	ID LinkID
}

// Send asks the adapter to send Args (already renamed) on a command link
// and report the reply as a CommandReply with the same Tag. If the link
// fails first, the adapter reports LinkClosed instead.
type Send struct {
	ID   LinkID
	Tag  uint64
	Args []string
}

func (OpenLink) isAction()  {}
func (CloseLink) isAction() {}
func (Send) isAction()      {}

// ReplyKind is the RESP type of a reply.
type ReplyKind int

// The reply kinds the core distinguishes. Status and bulk strings are the
// same for Sentinel's purposes.
const (
	ReplyString ReplyKind = iota
	ReplyError
	ReplyInt
	ReplyNil
	ReplyArray
)

// Reply is one RESP reply received on a link.
type Reply struct {
	Kind  ReplyKind
	Str   string // ReplyString and ReplyError (the error text with its code)
	Int   int64
	Elems []Reply
}

// LinkConnected reports that a link's connection was established (the
// dial succeeded). Until then the link counts as disconnected.
type LinkConnected struct {
	ID LinkID
}

// LinkClosed reports that a link's connection failed or ended. Err is the
// reason, for the debug log.
type LinkClosed struct {
	ID  LinkID
	Err string
}

// LinkLocalAddr reports the local address of a command link's socket once
// it is known (it is what hellos announce when announce-ip is not set).
type LinkLocalAddr struct {
	ID   LinkID
	Addr settings.Addr
}

// HostResolved reports the IP a hostname resolved to when a link to it
// connected (resolve-hostnames yes). The core shows that IP wherever an
// address is shown while announce-hostnames is off.
type HostResolved struct {
	Host string
	IP   string
}

// CommandReply is the reply to a Send.
type CommandReply struct {
	ID    LinkID
	Tag   uint64
	Reply Reply
}

// PubSubActivity reports anything other than a message arriving on a
// pub/sub link (a subscribe confirmation), which keeps the link fresh.
type PubSubActivity struct {
	ID LinkID
}

// PubSubMessage is a message received on a pub/sub link.
type PubSubMessage struct {
	ID      LinkID
	Channel string
	Payload string
}

// HelloFromClient is a hello sent to this Sentinel's own port with
// `PUBLISH __sentinel__:hello <payload>`.
type HelloFromClient struct {
	Payload string
}

func (LinkConnected) isInput()   {}
func (LinkClosed) isInput()      {}
func (LinkLocalAddr) isInput()   {}
func (HostResolved) isInput()    {}
func (CommandReply) isInput()    {}
func (PubSubActivity) isInput()  {}
func (PubSubMessage) isInput()   {}
func (HelloFromClient) isInput() {}
