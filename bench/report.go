package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"
)

// summary is the median, min and max of a series; n counts the values.
type summary struct {
	med, min, max float64
	n             int
}

// summarize returns the summary of xs, skipping NaN (a failed trial).
func summarize(xs []float64) summary {
	var v []float64
	for _, x := range xs {
		if !math.IsNaN(x) {
			v = append(v, x)
		}
	}
	if len(v) == 0 {
		return summary{med: math.NaN(), min: math.NaN(), max: math.NaN()}
	}
	slices.Sort(v)
	med := v[len(v)/2]
	if len(v)%2 == 0 {
		med = (v[len(v)/2-1] + v[len(v)/2]) / 2
	}
	return summary{med: med, min: v[0], max: v[len(v)-1], n: len(v)}
}

// seconds is d in seconds, NaN for a negative d (not measured).
func seconds(d time.Duration) float64 {
	if d < 0 {
		return math.NaN()
	}
	return d.Seconds()
}

// table is a Markdown table printed once complete.
type table struct {
	head []string
	rows [][]string
}

func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

func (t *table) print(w io.Writer) {
	widths := make([]int, len(t.head))
	for k, h := range t.head {
		widths[k] = len([]rune(h))
	}
	for _, r := range t.rows {
		for k, c := range r {
			widths[k] = max(widths[k], len([]rune(c)))
		}
	}
	line := func(cells []string) {
		var b strings.Builder
		b.WriteString("|")
		for k, c := range cells {
			b.WriteString(" " + c + strings.Repeat(" ", widths[k]-len([]rune(c))) + " |")
		}
		fmt.Fprintln(w, b.String())
	}
	line(t.head)
	sep := make([]string, len(t.head))
	for k := range sep {
		sep[k] = strings.Repeat("-", widths[k])
	}
	line(sep)
	for _, r := range t.rows {
		line(r)
	}
	fmt.Fprintln(w)
}

// fmtSec formats a summary of seconds as "median (min–max)".
func fmtSec(s summary) string {
	if s.n == 0 {
		return "n/a"
	}
	if s.n == 1 {
		return fmt.Sprintf("%.2f s", s.med)
	}
	return fmt.Sprintf("%.2f s (%.2f–%.2f)", s.med, s.min, s.max)
}

// fmtNum formats a summary with a unit and a precision.
func fmtNum(s summary, prec int, unit string) string {
	if s.n == 0 {
		return "n/a"
	}
	f := "%." + fmt.Sprint(prec) + "f"
	if s.n == 1 || s.min == s.max {
		return fmt.Sprintf(f+"%s", s.med, unit)
	}
	return fmt.Sprintf(f+"%s ("+f+"–"+f+")", s.med, unit, s.min, s.max)
}

// ratio formats a/b, "n/a" when either is missing.
func ratio(a, b summary) string {
	if a.n == 0 || b.n == 0 || b.med == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.2f", a.med/b.med)
}
