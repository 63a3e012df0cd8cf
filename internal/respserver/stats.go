package respserver

import (
	"sort"
	"sync/atomic"
)

// stats are the counters INFO stats shows.
type stats struct {
	connections atomic.Int64
	rejected    atomic.Int64
	commands    atomic.Int64
}

func sortClients(cs []*Client) {
	sort.Slice(cs, func(i, j int) bool { return cs[i].ID < cs[j].ID })
}
