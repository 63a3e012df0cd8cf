package history

import (
	"fmt"
	"strings"

	"github.com/anishathalye/porcupine"
)

// registerState is a register's value; set is false until the first
// SET (GET then answers nil).
type registerState struct {
	v   string
	set bool
}

// listSep joins a list's elements into one comparable state (elements
// never contain it).
const listSep = "\x00"

// listState is a list's elements, joined by listSep, and their count.
type listState struct {
	items string
	n     int64
}

// porcupineModel is the porcupine model of m: every operation's Input
// and Output are the same *Op, which carries both.
func porcupineModel(m Model) porcupine.Model {
	describe := func(in, _ any) string { return in.(*Op).String() }
	switch m {
	case Counter:
		return porcupine.Model{
			Init: func() any { return int64(0) },
			Step: func(state, in, _ any) (bool, any) {
				s, o := state.(int64), in.(*Op)
				return o.Unknown || o.N == s+1, s + 1
			},
			DescribeOperation: describe,
			DescribeState:     func(s any) string { return fmt.Sprint(s) },
		}
	case List:
		return porcupine.Model{
			Init: func() any { return listState{} },
			Step: func(state, in, _ any) (bool, any) {
				s, o := state.(listState), in.(*Op)
				if o.Kind == LRange {
					return strings.Join(o.Items, listSep) == s.items && int64(len(o.Items)) == s.n, s
				}
				next := listState{items: o.Value, n: s.n + 1}
				if s.n > 0 {
					next.items = s.items + listSep + o.Value
				}
				return o.Unknown || o.N == next.n, next
			},
			DescribeOperation: describe,
			DescribeState: func(s any) string {
				ls := s.(listState)
				if ls.n == 0 {
					return "[]"
				}
				items := strings.Split(ls.items, listSep)
				if len(items) > 6 {
					return fmt.Sprintf("[%s … %s] (%d)", strings.Join(items[:3], " "), strings.Join(items[len(items)-3:], " "), ls.n)
				}
				return "[" + strings.Join(items, " ") + "]"
			},
		}
	}
	return porcupine.Model{
		Init: func() any { return registerState{} },
		Step: func(state, in, _ any) (bool, any) {
			s, o := state.(registerState), in.(*Op)
			if o.Kind == Set {
				return true, registerState{v: o.Value, set: true}
			}
			if o.Nil {
				return !s.set, s
			}
			return s.set && s.v == o.Out, s
		},
		DescribeOperation: describe,
		DescribeState: func(s any) string {
			if rs := s.(registerState); rs.set {
				return rs.v
			}
			return "nil"
		},
	}
}
