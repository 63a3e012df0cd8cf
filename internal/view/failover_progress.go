package view

import "github.com/go-sentinel/go-sentinel/internal/settings"

// FailoverProgress is where a master's failover stands
// (Sentinel.FailoverProgress, which tests and simulations read).
type FailoverProgress struct {
	// InProgress is true from +try-failover until the failover ends or
	// is aborted.
	InProgress bool
	// State is the failover-state name ("none" when not in progress).
	State string
	// Epoch is the epoch of the last failover this Sentinel started.
	Epoch uint64
	// ConfigEpoch is the master's config epoch.
	ConfigEpoch uint64
	// Promoted is the replica being promoted, if one was selected.
	Promoted    settings.Addr
	HasPromoted bool
}
