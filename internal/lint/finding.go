package lint

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Severity ranks a Finding. The zero value is Info.
type Severity int

// The severities, in increasing order.
const (
	// Info reports figures worth knowing; it does not change the exit code.
	Info Severity = iota
	// Warning is a setting that loses writes, slows failover or risks a
	// needless one.
	Warning
	// Error is a topology in which a failover cannot happen or cannot be
	// authorised when it is needed.
	Error
)

// String returns "info", "warning" or "error".
func (s Severity) String() string {
	switch s {
	case Warning:
		return "warning"
	case Error:
		return "error"
	}
	return "info"
}

// MarshalJSON encodes the severity as its String.
func (s Severity) MarshalJSON() ([]byte, error) { return json.Marshal(s.String()) }

// UnmarshalJSON decodes what MarshalJSON writes.
func (s *Severity) UnmarshalJSON(b []byte) error {
	var v string
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	switch v {
	case "info":
		*s = Info
	case "warning":
		*s = Warning
	case "error":
		*s = Error
	default:
		return fmt.Errorf("lint: unknown severity %q", v)
	}
	return nil
}

// Finding is one problem (or, at Info, one noteworthy figure) about one
// master, or about the fleet when Master is empty.
type Finding struct {
	Severity Severity `json:"severity"`
	// Rule is the stable identifier of the rule (see the Rule* constants).
	Rule string `json:"rule"`
	// Master is the master name the finding is about; empty for findings
	// about a Sentinel given on the command line.
	Master string `json:"master,omitempty"`
	// Reason says what is wrong and what it leads to, in one sentence.
	Reason string `json:"reason"`
	// Fix says what to change.
	Fix string `json:"fix"`
	// Figures holds the numbers behind the reason, for machines (durations
	// in milliseconds, keys ending in _ms).
	Figures map[string]int64 `json:"figures,omitempty"`
}

// Sort orders findings by master, then most severe first; findings that
// tie keep their order (Check emits them in rule order, most fundamental
// first).
func Sort(fs []Finding) {
	slices.SortStableFunc(fs, func(a, b Finding) int {
		if c := strings.Compare(a.Master, b.Master); c != 0 {
			return c
		}
		return int(b.Severity) - int(a.Severity)
	})
}

// Counts tallies findings by severity.
type Counts struct {
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
	Info     int `json:"info"`
}

// Count tallies fs.
func Count(fs []Finding) Counts {
	var c Counts
	for _, f := range fs {
		switch f.Severity {
		case Error:
			c.Errors++
		case Warning:
			c.Warnings++
		default:
			c.Info++
		}
	}
	return c
}

// ExitCode is the process exit code for fs: 2 if any error, 1 if any
// warning, 0 otherwise (Info findings do not count).
func ExitCode(fs []Finding) int {
	c := Count(fs)
	switch {
	case c.Errors > 0:
		return 2
	case c.Warnings > 0:
		return 1
	}
	return 0
}
