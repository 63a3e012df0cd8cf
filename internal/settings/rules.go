package settings

import (
	"errors"
	"fmt"
	"math"
	"strings"
)

// ErrOutOfRange is the error of a value outside its option's range.
var ErrOutOfRange = errors.New("value out of range")

// ErrNotYesNo is the error of a yes/no option given something else.
var ErrNotYesNo = errors.New("not yes or no")

// fileMax is the largest number the config file reads back: Redis reads
// every per-master number with atoi, which keeps 32 bits, so a larger
// value written by the rewrite comes back as another (4294967297 as 1)
// or as an error that stops the next start ("negative or zero time
// parameter" for 9223372036854775807). Every number an option stores is
// bounded by it, from the file and from SENTINEL SET alike.
const fileMax = math.MaxInt32

// NumberRule is the one rule for a numeric master option: the config
// file (`sentinel <option> <master> <n>`) and SENTINEL SET both store the
// option's value through it, and only through it.
type NumberRule struct {
	// Min is the smallest value accepted; the largest is Max, or the
	// config file's (fileMax) when Max is 0.
	Min, Max int64
	// FileAnyInt: the config file takes any integer for it, as Redis's
	// does (parallel-syncs); SENTINEL SET still applies Min.
	FileAnyInt bool
	// set stores v, a number of milliseconds for a duration.
	set func(m *Master, v int64)
}

// numberRules are the numeric master options by name.
var numberRules = map[string]NumberRule{
	OptionQuorum:              {Min: 1, set: func(m *Master, v int64) { m.Quorum = int(v) }},
	OptionDownAfter:           {Min: 1, set: func(m *Master, v int64) { m.DownAfterMs = v }},
	OptionFailoverTimeout:     {Min: 1, set: func(m *Master, v int64) { m.FailoverTimeoutMs = v }},
	OptionParallelSyncs:       {Min: 1, FileAnyInt: true, set: func(m *Master, v int64) { m.ParallelSyncs = int(v) }},
	OptionRebootDownAfter:     {Min: 0, set: func(m *Master, v int64) { m.RebootDownAfterMs = v }},
	OptionProxyFenceAfter:     {Min: 1, Max: MaxProxyFenceAfterMs, set: func(m *Master, v int64) { m.ProxyFenceAfterMs = v }},
	OptionProxyHold:           {Min: 0, set: func(m *Master, v int64) { m.ProxyHoldMs = v }},
	OptionProxyReplicaMaxLag:  {Min: 0, set: func(m *Master, v int64) { m.ProxyReplicaMaxLagMs = v }},
	OptionForgetReplicaAfter:  {Min: 0, set: func(m *Master, v int64) { m.ForgetReplicaAfterMs = v }},
	OptionVoters:              {Min: 0, set: func(m *Master, v int64) { m.Voters = int(v) }},
	OptionForgetSentinelAfter: {Min: 0, set: func(m *Master, v int64) { m.ForgetSentinelAfterMs = v }},
}

// Number returns the rule of a numeric master option (its canonical
// name; OptionRebootDownAfterAlias is taken too), or false.
func Number(option string) (NumberRule, bool) {
	if option == OptionRebootDownAfterAlias {
		option = OptionRebootDownAfter
	}
	r, ok := numberRules[option]
	return r, ok
}

// Set stores v in m when the rule takes it, else returns ErrOutOfRange
// and leaves m as it was.
func (r NumberRule) Set(m *Master, v int64) error {
	hi := r.Max
	if hi == 0 {
		hi = fileMax
	}
	if v < r.Min || v > hi {
		return fmt.Errorf("%w: %d not in [%d, %d]", ErrOutOfRange, v, r.Min, hi)
	}
	r.set(m, v)
	return nil
}

// SetFromFile stores v as the config file gives it (already read with
// Redis's atoi, so within 32 bits): FileAnyInt options take any value.
func (r NumberRule) SetFromFile(m *Master, v int64) error {
	if r.FileAnyInt {
		r.set(m, v)
		return nil
	}
	return r.Set(m, v)
}

// YesNoRule is the one rule for a yes/no master option, stored as a flag
// that "no" sets (the zero value is the default, yes).
type YesNoRule struct {
	flag func(m *Master) *bool
}

// yesNoRules are the yes/no master options by name.
var yesNoRules = map[string]YesNoRule{
	OptionProxyFencing:       {flag: func(m *Master) *bool { return &m.ProxyNoFencing }},
	OptionProxyProtectedMode: {flag: func(m *Master) *bool { return &m.ProxyNoProtectedMode }},

	OptionProxyReplicasPriorityZero: {flag: func(m *Master) *bool { return &m.ProxyReplicasNoPriorityZero }},
	OptionProxyReplicasFallback:     {flag: func(m *Master) *bool { return &m.ProxyReplicasNoFallback }},
}

// YesNo returns the rule of a yes/no master option, or false.
func YesNo(option string) (YesNoRule, bool) {
	r, ok := yesNoRules[option]
	return r, ok
}

// Set stores v ("yes" or "no", any case) in m, else returns ErrNotYesNo.
func (r YesNoRule) Set(m *Master, v string) error {
	switch strings.ToLower(v) {
	case "yes":
		*r.flag(m) = false
	case "no":
		*r.flag(m) = true
	default:
		return fmt.Errorf("%w: %q", ErrNotYesNo, v)
	}
	return nil
}

// YesNoText is a flag as the config file and SENTINEL CONFIG spell it:
// "yes" or "no".
func YesNoText(v bool) string {
	if v {
		return "yes"
	}
	return "no"
}
