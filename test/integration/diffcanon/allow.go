package diffcanon

import (
	"fmt"
	"strings"
)

// Allowance is one accepted difference between go-sentinel and
// redis-sentinel: the canonical events it names are dropped from both
// fleets' records in its scenario ("*" for every scenario).
type Allowance struct {
	Scenario string
	Event    string
	Reason   string
}

// AllowSection is the heading of docs/compatibility.md under which the
// allowance table is.
const AllowSection = "## Differential runs against redis-sentinel"

// ParseAllowances reads the allowance table of docs/compatibility.md:
// the first markdown table under AllowSection whose header is
// "scenario | canonical event | reason". Every row needs the three cells
// and a reason. A section without such a table means no allowance.
func ParseAllowances(doc string) ([]Allowance, error) {
	i := strings.Index(doc, AllowSection+"\n")
	if i < 0 {
		return nil, fmt.Errorf("no %q section", AllowSection)
	}
	body := doc[i+len(AllowSection)+1:]
	if j := strings.Index(body, "\n## "); j >= 0 {
		body = body[:j]
	}
	var out []Allowance
	inTable := false
	for n, line := range strings.Split(body, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "|") {
			if inTable {
				break
			}
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for k := range cells {
			cells[k] = strings.TrimSpace(strings.Trim(strings.TrimSpace(cells[k]), "`"))
		}
		if !inTable {
			if len(cells) == 3 && cells[0] == "scenario" && cells[1] == "canonical event" && cells[2] == "reason" {
				inTable = true
			}
			continue
		}
		if strings.Trim(line, "|-: ") == "" {
			continue // the separator row
		}
		if len(cells) != 3 || cells[0] == "" || cells[1] == "" || cells[2] == "" {
			return nil, fmt.Errorf("allowance table line %d: want | scenario | canonical event | reason |, got %q", n+1, line)
		}
		out = append(out, Allowance{Scenario: cells[0], Event: cells[1], Reason: cells[2]})
	}
	return out, nil
}

// Matches reports whether the allowance names the canonical event or
// reconfig line s: the same text, or a prefix of it ending at a word or
// at the kind ("+role-change" and "+role-change slave" match
// "+role-change slave:m").
func (a Allowance) Matches(s string) bool {
	return s == a.Event || strings.HasPrefix(s, a.Event+" ") || strings.HasPrefix(s, a.Event+":")
}

// Dropper returns the drop function for a scenario: true for the
// canonical events some allowance of the scenario (or "*") names.
func Dropper(allow []Allowance, scenario string) func(string) bool {
	var mine []Allowance
	for _, a := range allow {
		if a.Scenario == scenario || a.Scenario == "*" {
			mine = append(mine, a)
		}
	}
	return func(s string) bool {
		for _, a := range mine {
			if a.Matches(s) {
				return true
			}
		}
		return false
	}
}
