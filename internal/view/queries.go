package view

import (
	"errors"
	"iter"
	"time"

	"github.com/go-sentinel/go-sentinel/internal/failover"
	"github.com/go-sentinel/go-sentinel/internal/object"
	"github.com/go-sentinel/go-sentinel/internal/settings"
)

// ErrNoSuchMaster is the error about a master that is not monitored,
// from a query of the View or from the core.
var ErrNoSuchMaster = errors.New("no such master with that name")

// KV is one field of an instance map, in reply order.
type KV struct {
	Key   string
	Value string
}

// MasterStatus is a master's health as INFO sentinel reports it.
type MasterStatus string

// The statuses of INFO sentinel's masterN lines.
const (
	StatusOK    MasterStatus = "ok"
	StatusSDown MasterStatus = "sdown"
	StatusODown MasterStatus = "odown"
)

// StatusOf is the status of a master with these flags: odown if it is
// ODOWN, else sdown if SDOWN, else ok.
func StatusOf(f object.Flag) MasterStatus {
	switch {
	case f&object.ODown != 0:
		return StatusODown
	case f&object.SDown != 0:
		return StatusSDown
	}
	return StatusOK
}

// MasterSummary is the per-master line of INFO sentinel.
type MasterSummary struct {
	Name string
	Addr settings.Addr
	// Status is odown if the master is ODOWN, else sdown if SDOWN, else ok.
	Status       MasterStatus
	NumReplicas  int
	NumSentinels int // known other Sentinels, not counting this one
}

// MasterSummaries returns one summary per master in name order.
func (v *View) MasterSummaries() []MasterSummary {
	out := make([]MasterSummary, 0, len(v.Index))
	for mv := range v.all() {
		out = append(out, MasterSummary{
			Name:         mv.Inst.Name,
			Addr:         mv.InfoAddr,
			Status:       StatusOf(mv.Inst.Flags),
			NumReplicas:  len(mv.Replicas),
			NumSentinels: len(mv.Sentinels),
		})
	}
	return out
}

// MasterNames returns the monitored masters' names in order.
func (v *View) MasterNames() []string {
	out := make([]string, 0, len(v.Index))
	for mv := range v.all() {
		out = append(out, mv.Inst.Name)
	}
	return out
}

// all yields the masters in name order.
func (v *View) all() iter.Seq[*Master] {
	return func(yield func(*Master) bool) {
		for k := range len(v.Index) {
			if !yield(v.At(k)) {
				return
			}
		}
	}
}

// Tilt reports whether the Sentinel was in TILT mode and since when.
func (v *View) Tilt() (bool, time.Time) { return v.InTilt, time.UnixMilli(v.TiltStart) }

// TotalTilt is how many times the Sentinel entered TILT since it started
// (INFO's sentinel_total_tilt).
func (v *View) TotalTilt() int64 { return v.Tilts }

// ScriptCounts returns the scripts running and queued (running ones
// included), as scriptq.Queue.Counts.
func (v *View) ScriptCounts() (running, queued int) { return v.ScriptsRunning, v.ScriptsQueued }

// SimFailureFlags is what SENTINEL SIMULATE-FAILURE set (INFO's
// sentinel_simulate_failure_flags).
func (v *View) SimFailureFlags() failover.SimFailure { return v.SimFailure }

// master returns the View of the master called name.
func (v *View) master(name string) (*Master, error) {
	k, ok := v.Index[name]
	if !ok {
		return nil, ErrNoSuchMaster
	}
	return v.At(k), nil
}

// Master returns the instance map of one master at now.
func (v *View) Master(now time.Time, name string) ([]KV, error) {
	mv, err := v.master(name)
	if err != nil {
		return nil, err
	}
	return v.instanceMap(mv, mv.Inst, now.UnixMilli()), nil
}

// Masters returns the instance maps of every master at now, in name
// order.
func (v *View) Masters(now time.Time) [][]KV {
	t := now.UnixMilli()
	out := make([][]KV, 0, len(v.Index))
	for mv := range v.all() {
		out = append(out, v.instanceMap(mv, mv.Inst, t))
	}
	return out
}

// Replicas returns the maps of a master's replicas at now, leaving out
// those that report replica-announced 0.
func (v *View) Replicas(now time.Time, name string) ([][]KV, error) {
	mv, err := v.master(name)
	if err != nil {
		return nil, err
	}
	t := now.UnixMilli()
	out := [][]KV{}
	for _, r := range mv.Replicas {
		if r.Announced != 0 {
			out = append(out, v.instanceMap(mv, r, t))
		}
	}
	return out, nil
}

// Sentinels returns the maps of the other Sentinels known for a master,
// at now.
func (v *View) Sentinels(now time.Time, name string) ([][]KV, error) {
	mv, err := v.master(name)
	if err != nil {
		return nil, err
	}
	t := now.UnixMilli()
	out := [][]KV{}
	for _, si := range mv.Sentinels {
		out = append(out, v.instanceMap(mv, si, t))
	}
	return out, nil
}

// MasterAddr returns the address clients should use for a master: the
// promoted replica's once a failover reached reconf_slaves.
func (v *View) MasterAddr(name string) (settings.Addr, bool) {
	mv, err := v.master(name)
	if err != nil {
		return settings.Addr{}, false
	}
	return mv.Addr, true
}
