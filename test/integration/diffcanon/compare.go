package diffcanon

import (
	"fmt"
	"sort"
	"strings"
)

// Side is one fleet's canonical records.
type Side struct {
	Name      string // "A (redis-sentinel)"
	Sentinels []Canonical
	Facts     []string
}

func key(c Canonical) string { return strings.Join(c.Lines, "\n") }

// Compare compares two fleets as multisets of per-Sentinel canonical
// sequences (which Sentinel leads a failover is not fixed, so Sentinels
// are not matched by position) plus their facts. It returns "" when they
// are equal, else a readable report: each Sentinel sequence of one fleet
// with no equal one in the other is paired with the closest one left and
// shown as a line diff ("-" only in a, "+" only in b).
func Compare(a, b Side) string {
	var rep strings.Builder
	if strings.Join(a.Facts, "\n") != strings.Join(b.Facts, "\n") {
		fmt.Fprintf(&rep, "fleet facts differ:\n  %s: %q\n  %s: %q\n", a.Name, a.Facts, b.Name, b.Facts)
	}
	left := append([]Canonical(nil), a.Sentinels...)
	right := append([]Canonical(nil), b.Sentinels...)
	// Remove the exact matches.
	for i := 0; i < len(left); i++ {
		for j := 0; j < len(right); j++ {
			if key(left[i]) == key(right[j]) {
				left = append(left[:i], left[i+1:]...)
				right = append(right[:j], right[j+1:]...)
				i--
				break
			}
		}
	}
	// Pair what is left, closest first.
	for len(left) > 0 && len(right) > 0 {
		bi, bj, best := 0, 0, -1
		for i := range left {
			for j := range right {
				d := distance(left[i].Lines, right[j].Lines)
				if best < 0 || d < best {
					bi, bj, best = i, j, d
				}
			}
		}
		fmt.Fprintf(&rep, "Sentinel %s of %s against %s of %s:\n", left[bi].Sentinel, a.Name, right[bj].Sentinel, b.Name)
		for _, l := range Diff(left[bi].Lines, right[bj].Lines) {
			rep.WriteString("  " + l + "\n")
		}
		left = append(left[:bi], left[bi+1:]...)
		right = append(right[:bj], right[bj+1:]...)
	}
	for _, c := range left {
		fmt.Fprintf(&rep, "Sentinel %s of %s has no counterpart:\n  %s\n", c.Sentinel, a.Name, strings.Join(c.Lines, "\n  "))
	}
	for _, c := range right {
		fmt.Fprintf(&rep, "Sentinel %s of %s has no counterpart:\n  %s\n", c.Sentinel, b.Name, strings.Join(c.Lines, "\n  "))
	}
	return rep.String()
}

// Format writes a fleet's canonical records, Sentinels in the order of
// their sequences (so equal fleets print alike).
func Format(s Side) string {
	cs := append([]Canonical(nil), s.Sentinels...)
	sort.SliceStable(cs, func(i, j int) bool { return key(cs[i]) < key(cs[j]) })
	var b strings.Builder
	fmt.Fprintf(&b, "%s:\n", s.Name)
	for _, c := range cs {
		fmt.Fprintf(&b, "  %s:\n", c.Sentinel)
		for _, l := range c.Lines {
			fmt.Fprintf(&b, "    %s\n", l)
		}
	}
	for _, f := range s.Facts {
		fmt.Fprintf(&b, "  fact: %s\n", f)
	}
	dropped := map[string]int{}
	for _, c := range s.Sentinels {
		for k, v := range c.Dropped {
			dropped[k] += v
		}
	}
	if len(dropped) > 0 {
		var names []string
		for k := range dropped {
			names = append(names, k)
		}
		sort.Strings(names)
		b.WriteString("  rules fired (events dropped):")
		for _, k := range names {
			fmt.Fprintf(&b, " %s %d", k, dropped[k])
		}
		b.WriteString("\n")
	}
	return b.String()
}

// lcs is the table of longest common subsequence lengths of a[i:], b[j:].
func lcs(a, b []string) [][]int {
	t := make([][]int, len(a)+1)
	for i := range t {
		t[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				t[i][j] = t[i+1][j+1] + 1
			} else {
				t[i][j] = max(t[i+1][j], t[i][j+1])
			}
		}
	}
	return t
}

// distance is the number of lines only in a or only in b.
func distance(a, b []string) int { return len(a) + len(b) - 2*lcs(a, b)[0][0] }

// Diff is a line diff of a and b: "  x" in both, "- x" only in a, "+ x"
// only in b.
func Diff(a, b []string) []string {
	t := lcs(a, b)
	var out []string
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			out = append(out, "  "+a[i])
			i++
			j++
		case j < len(b) && (i == len(a) || t[i][j+1] >= t[i+1][j]):
			out = append(out, "+ "+b[j])
			j++
		default:
			out = append(out, "- "+a[i])
			i++
		}
	}
	return out
}
