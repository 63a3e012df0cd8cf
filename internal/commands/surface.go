package commands

import (
	"errors"
	"fmt"
)

// Surface is the command surface a Sentinel presents on its port: the
// commands COMMAND lists, their arities and the replies of the commands
// whose form changed between Redis Sentinel versions. A fleet picks it
// with the go-sentinel directive `sentinel command-surface`.
type Surface uint8

// The command surfaces. Surface70 is the zero value, the default.
const (
	// Surface70 is Redis 7.0's Sentinel (7.0.15): COMMAND lists 72
	// names, SENTINEL CONFIG GET and SET take one parameter and know no
	// loglevel.
	Surface70 Surface = iota
	// Surface72 is the Sentinel of Redis 7.2 through 8.x and Valkey 8
	// and 9: COMMAND lists CLIENT SETINFO too (73 names), SENTINEL CONFIG
	// GET and SET take several parameters, loglevel among them.
	Surface72
)

// The spellings of the surfaces in the directive and in `go-sentinel
// check`.
const (
	Surface70Name = "7.0"
	Surface72Name = "7.2"
)

// ErrBadSurface is the error of ParseSurface for a value that names no
// surface.
var ErrBadSurface = errors.New("command-surface must be " + Surface70Name + " or " + Surface72Name)

// ParseSurface returns the surface named s ("7.0" or "7.2").
func ParseSurface(s string) (Surface, error) {
	switch s {
	case Surface70Name:
		return Surface70, nil
	case Surface72Name:
		return Surface72, nil
	}
	return Surface70, fmt.Errorf("%q: %w", s, ErrBadSurface)
}

// String returns the directive's spelling of s.
func (s Surface) String() string {
	switch s {
	case Surface70:
		return Surface70Name
	case Surface72:
		return Surface72Name
	}
	return fmt.Sprintf("Surface(%d)", uint8(s))
}

// Describe returns what s stands for, for `go-sentinel check`.
func (s Surface) Describe() string {
	switch s {
	case Surface70:
		return "Redis 7.0's Sentinel"
	case Surface72:
		return "the Sentinel of Redis 7.2 through 8.x and Valkey 8 and 9"
	}
	return s.String()
}
