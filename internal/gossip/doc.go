// Package gossip holds the Sentinel-to-Sentinel protocol of Redis Sentinel
// 7.0.15 as values: the hello message Sentinels publish on Channel to learn
// about each other (Hello, DecodeHello), and SENTINEL
// IS-MASTER-DOWN-BY-ADDR, with which one Sentinel asks another whether a
// master is down and for its vote (AskRequest, ParseAskRequest) and reads
// the answer (AskReply, ParseAskReply), and go-sentinel's SENTINEL LEASE
// (LeaseRequest, ParseLeaseRequest, ParseLeaseReply). It knows the wire
// format and Redis's parsing rules, nothing of the core that acts on the
// messages;
// the RESP layers spell its values and errors on the wire.
//
// It is a pure leaf beside internal/monitor: it imports only the standard
// library and internal/cnum (itself a standard-library-only leaf), and
// nothing imports back.
package gossip
