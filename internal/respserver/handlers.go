package respserver

import "github.com/go-sentinel/go-sentinel/internal/commands"

// handler runs one command and returns its reply.
type handler func(*ctx) Value

// handlers binds the catalogued commands to the functions that run them,
// by full name. Containers have none (given alone they fail on arity),
// except COMMAND, which runs alone; aliases run their command's handler.
var handlers = map[string]handler{
	"acl|cat":                          cmdACLCat,
	"acl|deluser":                      cmdACLDelUser,
	"acl|dryrun":                       cmdACLDryRun,
	"acl|genpass":                      cmdACLGenPass,
	"acl|getuser":                      cmdACLGetUser,
	"acl|help":                         cmdACLHelp,
	"acl|list":                         cmdACLList,
	"acl|load":                         cmdACLLoad,
	"acl|log":                          cmdACLLog,
	"acl|save":                         cmdACLSave,
	"acl|setuser":                      cmdACLSetUser,
	"acl|users":                        cmdACLUsers,
	"acl|whoami":                       cmdACLWhoAmI,
	"auth":                             cmdAuth,
	"client|caching":                   cmdClientCaching,
	"client|getname":                   cmdClientGetname,
	"client|getredir":                  cmdClientGetredir,
	"client|help":                      cmdClientHelp,
	"client|id":                        cmdClientID,
	"client|info":                      cmdClientInfo,
	"client|kill":                      cmdClientKill,
	"client|list":                      cmdClientList,
	"client|no-evict":                  cmdClientNoEvict,
	"client|pause":                     cmdClientPause,
	"client|reply":                     cmdClientReply,
	"client|setinfo":                   cmdClientSetinfo,
	"client|setname":                   cmdClientSetname,
	"client|tracking":                  cmdClientTracking,
	"client|trackinginfo":              cmdClientTrackingInfo,
	"client|unblock":                   cmdClientUnblock,
	"client|unpause":                   cmdClientUnpause,
	"command":                          cmdCommand,
	"command|count":                    cmdCommandCount,
	"command|docs":                     cmdCommandDocs,
	"command|getkeys":                  cmdCommandGetKeys,
	"command|getkeysandflags":          cmdCommandGetKeys,
	"command|help":                     cmdCommandHelp,
	"command|info":                     cmdCommandInfo,
	"command|list":                     cmdCommandList,
	"hello":                            cmdHello,
	"info":                             cmdInfo,
	"ping":                             cmdPing,
	"psubscribe":                       cmdSubscribe,
	"publish":                          cmdPublish,
	"punsubscribe":                     cmdUnsubscribe,
	"role":                             cmdRole,
	"sentinel|ckquorum":                cmdSentinelCkQuorum,
	"sentinel|config":                  cmdSentinelConfig,
	"sentinel|debug":                   cmdSentinelDebug,
	"sentinel|explain":                 cmdSentinelExplain,
	"sentinel|failover":                cmdSentinelFailover,
	"sentinel|flushconfig":             cmdSentinelFlushConfig,
	"sentinel|get-master-addr-by-name": cmdSentinelGetMasterAddr,
	"sentinel|help":                    cmdSentinelHelp,
	"sentinel|info-cache":              cmdSentinelInfoCache,
	"sentinel|is-master-down-by-addr":  cmdSentinelIsMasterDown,
	"sentinel|lease":                   cmdSentinelLease,
	"sentinel|master":                  cmdSentinelMaster,
	"sentinel|masters":                 cmdSentinelMasters,
	"sentinel|monitor":                 cmdSentinelMonitor,
	"sentinel|myid":                    cmdSentinelMyID,
	"sentinel|pending-scripts":         cmdSentinelPendingScripts,
	"sentinel|remove":                  cmdSentinelRemove,
	"sentinel|replicas":                cmdSentinelReplicas,
	"sentinel|reset":                   cmdSentinelReset,
	"sentinel|sentinels":               cmdSentinelSentinels,
	"sentinel|set":                     cmdSentinelSet,
	"sentinel|simulate-failure":        cmdSentinelSimulateFailure,
	"sentinel|slaves":                  cmdSentinelReplicas,
	"shutdown":                         cmdShutdown,
	"subscribe":                        cmdSubscribe,
	"unsubscribe":                      cmdUnsubscribe,
}

// bound is handlers indexed by catalogue ID (the ID an alias shares with
// its command).
var bound = bindHandlers(catalogue, handlers)

func bindHandlers(cat *commands.Catalogue, hs map[string]handler) []handler {
	out := make([]handler, len(cat.All()))
	for _, s := range cat.All() {
		out[s.ID] = hs[s.Name]
	}
	return out
}

// handlerOf returns the handler of a command dispatch found.
func handlerOf(s *commands.Spec) handler { return bound[s.ID] }
