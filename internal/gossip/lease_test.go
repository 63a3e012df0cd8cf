package gossip

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// TestParseLeaseRequest reads what Args writes, and refuses every other
// shape with the error the RESP layer spells.
func TestParseLeaseRequest(t *testing.T) {
	two := LeaseRequest{RunID: "abc", LeaseMs: 2000, Targets: []LeaseTarget{{"10.0.0.1", 6379, 3}, {"db.local", 6380, 0}}}
	for _, tc := range []struct {
		name string
		args []string
		want LeaseRequest
		err  error
	}{
		{"round trip", two.Args()[2:], two, nil},
		{"one target", []string{"abc", "1", "h", "1", "2"}, LeaseRequest{"abc", 1, []LeaseTarget{{"h", 1, 2}}}, nil},
		{"no target", []string{"abc", "1000"}, LeaseRequest{}, ErrLeaseArgs},
		{"a target short", []string{"abc", "1000", "h", "1"}, LeaseRequest{}, ErrLeaseArgs},
		{"a target long", []string{"abc", "1000", "h", "1", "2", "x"}, LeaseRequest{}, ErrLeaseArgs},
		{"length not a number", []string{"abc", "1s", "h", "1", "2"}, LeaseRequest{}, ErrNotInteger},
		{"length zero", []string{"abc", "0", "h", "1", "2"}, LeaseRequest{}, ErrLeaseLength},
		{"length negative", []string{"abc", "-5", "h", "1", "2"}, LeaseRequest{}, ErrLeaseLength},
		{"port not a number", []string{"abc", "1000", "h", "x", "2"}, LeaseRequest{}, ErrNotInteger},
		{"port beyond int32", []string{"abc", "1000", "h", "2147483648", "2"}, LeaseRequest{}, ErrNotInteger},
		{"epoch negative", []string{"abc", "1000", "h", "1", "-1"}, LeaseRequest{}, ErrNotInteger},
		{"epoch with a plus", []string{"abc", "1000", "h", "1", "+1"}, LeaseRequest{}, ErrNotInteger},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseLeaseRequest(tc.args)
			if !errors.Is(err, tc.err) {
				t.Fatalf("err = %v, want %v", err, tc.err)
			}
			if err == nil && !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestParseLeaseReply grants only on an array of exactly one 0 or 1 per
// target; an error reply, as redis-sentinel gives, grants nothing.
func TestParseLeaseReply(t *testing.T) {
	for _, tc := range []struct {
		name  string
		elems []any
		array bool
		n     int
		want  []bool
	}{
		{"granted and refused", []any{int64(1), int64(0)}, true, 2, []bool{true, false}},
		{"not an array", nil, false, 1, nil},
		{"too few", []any{int64(1)}, true, 2, nil},
		{"too many", []any{int64(1), int64(1)}, true, 1, nil},
		{"a string", []any{"1"}, true, 1, nil},
		{"another integer", []any{int64(2)}, true, 1, nil},
	} {
		got, ok := ParseLeaseReply(tc.elems, tc.array, tc.n)
		if ok != (tc.want != nil) || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %v %v, want %v", tc.name, got, ok, tc.want)
		}
	}
}

// FuzzParseLeaseRequest: any arguments give a request or one of the
// three errors, never a panic, and a request parsed from them is written
// back by Args as arguments that parse to the same request.
func FuzzParseLeaseRequest(f *testing.F) {
	f.Add("abc", "2000", "10.0.0.1", "6379", "3", "")
	f.Add("", "-1", "", "99999999999", "-5", "x y z")
	f.Add("*", "9223372036854775807", "h", "+1", "007", "a 1 2")
	f.Fuzz(func(t *testing.T, runID, ms, ip, port, epoch, more string) {
		args := append([]string{runID, ms, ip, port, epoch}, strings.Fields(more)...)
		r, err := ParseLeaseRequest(args)
		if err != nil {
			if !errors.Is(err, ErrLeaseArgs) && !errors.Is(err, ErrLeaseLength) && !errors.Is(err, ErrNotInteger) {
				t.Fatalf("ParseLeaseRequest(%q): unexpected error %v", args, err)
			}
			return
		}
		again, err := ParseLeaseRequest(r.Args()[2:])
		if err != nil || !reflect.DeepEqual(again, r) {
			t.Fatalf("parse(args(%+v)) = %+v, %v", r, again, err)
		}
	})
}
