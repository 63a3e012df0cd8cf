// Package msg holds the values that go into the core (internal/monitor)
// and come out of it, as etcd-io/raft keeps its messages in raftpb: the
// inputs Step applies (Input: a link connected or closed, a reply, a
// pub/sub message, a hello, a script's start and exit, and one input per
// mutating client command) with their answers, and the actions Ready
// hands the adapters (Action: open, close and send on links, persist the
// config, run or kill a script, exit), gathered with the log lines in a
// Ready. They are plain data: the adapters build and read them, the core
// decides. It imports only leaves.
package msg
