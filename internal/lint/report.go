package lint

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Report is the outcome of a check, as `go-sentinel check` prints it.
type Report struct {
	// File is the config file checked.
	File string `json:"file"`
	// Live tells whether the running fleet was probed; Sentinels are the
	// addresses given for that.
	Live      bool     `json:"live"`
	Sentinels []string `json:"sentinels,omitempty"`
	// SLAms is the --sla target in milliseconds (0: none).
	SLAms    int64     `json:"sla_ms,omitempty"`
	Findings []Finding `json:"findings"`
	Counts   Counts    `json:"counts"`
	// ExitCode is ExitCode(Findings).
	ExitCode int `json:"exit_code"`
}

// NewReport fills Counts and ExitCode from findings.
func NewReport(file string, sentinels []string, slaMs int64, findings []Finding) Report {
	if findings == nil {
		findings = []Finding{}
	}
	return Report{
		File: file, Live: len(sentinels) > 0, Sentinels: sentinels, SLAms: slaMs,
		Findings: findings, Counts: Count(findings), ExitCode: ExitCode(findings),
	}
}

// WriteJSON writes r as one indented JSON document.
func WriteJSON(w io.Writer, r Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}

// textWidth is the column text output wraps at.
const textWidth = 100

// WriteText writes r for people: each finding as a header line
// "<severity> [<rule>] <master>", its reason and its fix, wrapped and
// indented, then a summary line "<file>: OK" or "<file>: N errors, M
// warnings".
func WriteText(w io.Writer, r Report) error {
	var b strings.Builder
	for _, f := range r.Findings {
		subject := f.Master
		if subject == "" {
			subject = "(fleet)"
		}
		fmt.Fprintf(&b, "%s [%s] %s\n", strings.ToUpper(f.Severity.String()), f.Rule, subject)
		wrap(&b, "    ", f.Reason)
		wrap(&b, "    fix: ", f.Fix)
		b.WriteByte('\n')
	}
	c := r.Counts
	var status string
	if c.Errors == 0 && c.Warnings == 0 {
		status = "OK"
	} else {
		status = fmt.Sprintf("%d error%s, %d warning%s", c.Errors, plural(c.Errors, "", "s"), c.Warnings, plural(c.Warnings, "", "s"))
	}
	if c.Info > 0 {
		status += fmt.Sprintf(" (%d info)", c.Info)
	}
	mode := "static checks only; pass --sentinels host:port,... to check the running fleet too"
	if r.Live {
		mode = fmt.Sprintf("checked live through %d Sentinel%s", len(r.Sentinels), plural(len(r.Sentinels), "", "s"))
	}
	fmt.Fprintf(&b, "%s: %s; %s\n", r.File, status, mode)
	_, err := io.WriteString(w, b.String())
	return err
}

// wrap writes text after prefix, wrapped at textWidth, continuation lines
// indented by four spaces more than the first line's own indentation.
func wrap(b *strings.Builder, prefix, text string) {
	indent := strings.Repeat(" ", len(prefix)-len(strings.TrimLeft(prefix, " "))+4)
	if strings.TrimSpace(prefix) == "" {
		indent = prefix
	}
	line := prefix
	empty := true
	for _, word := range strings.Fields(text) {
		if !empty && utf8.RuneCountInString(line)+1+utf8.RuneCountInString(word) > textWidth {
			b.WriteString(line)
			b.WriteByte('\n')
			line, empty = indent, true
		}
		if !empty {
			line += " "
		}
		line += word
		empty = false
	}
	b.WriteString(line)
	b.WriteByte('\n')
}
