package config

import "slices"

// DirectiveInfo describes a generic directive of the directive table for
// other packages (the linter, tests of the runtime exposure).
type DirectiveInfo struct {
	// Name is the canonical name; Alias another accepted one, or "".
	Name  string
	Alias string
	// Honoured directives set a Server field (or, for dir, the working
	// directory); the others are accepted, validated and ignored.
	Honoured bool
	// Default is the Sentinel's default as config text ("" for none).
	Default string
	// Values are the accepted values of an enum directive.
	Values []string
	// Runtime directives are also read and changed with SENTINEL CONFIG
	// GET/SET on the 7.2 command surface (7.0's knows none).
	Runtime bool
	// Extension directives are go-sentinel's own (Redis 7.0 rejects them).
	Extension bool
}

// Directives returns the generic directives in table order (not the
// `sentinel` sub-directives, nor loader lines such as include).
func Directives() []DirectiveInfo {
	var out []DirectiveInfo
	for i := range directiveTable {
		d := &directiveTable[i]
		if d.kind == kindLoader {
			continue
		}
		out = append(out, DirectiveInfo{
			Name:      d.name,
			Alias:     d.alias,
			Honoured:  d.get != nil,
			Default:   d.def,
			Values:    slices.Clone(d.enum),
			Runtime:   d.runtime,
			Extension: d.extension,
		})
	}
	return out
}
