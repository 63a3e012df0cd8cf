package integration

import (
	"testing"
	"time"
)

// TestRelLossClassify checks the loss classifier on made-up histories:
// each case is the samples of three nodes of one group (a on h1, b on
// h2, c on h3), the faults, and one lost write with the class it must
// get.
func TestRelLossClassify(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	const a, b, c = "10.0.0.1:6379", "10.0.0.2:6379", "10.0.0.3:6379"
	master := func(ms, last int) relSample { return relSample{at: at(ms), role: "master", last: last} }
	replica := func(ms int, of string, last int) relSample {
		return relSample{at: at(ms), role: "slave", master: of, last: last}
	}
	for _, tc := range []struct {
		name    string
		samples map[string][]relSample
		faults  []*relFaultRec
		lost    relAck
		want    relLossClass
	}{
		{
			name: "killed before the replicas had it",
			samples: map[string][]relSample{
				a: {master(0, 100), replica(5000, b, 99)},
				b: {replica(0, a, 99), master(2000, 99)},
				c: {replica(0, a, 99), replica(2500, b, 99)},
			},
			faults: []*relFaultRec{{kind: relFaultKill, label: "kill", nodes: []string{a}, from: at(10), to: at(4000)}},
			lost:   relAck{seq: 100, addr: a, at: at(5)},
			want:   relLossKilled,
		},
		{
			name: "promoted the replica that lacked it while another had it",
			samples: map[string][]relSample{
				a: {master(0, 100), replica(5000, b, 99)},
				b: {replica(0, a, 99), replica(1900, a, 99), master(2000, 99)},
				c: {replica(0, a, 99), replica(100, a, 100), replica(2500, b, 99)},
			},
			faults: []*relFaultRec{{kind: relFaultKill, label: "kill", nodes: []string{a}, from: at(10), to: at(4000)}},
			lost:   relAck{seq: 100, addr: a, at: at(5)},
			want:   relLossStale,
		},
		{
			name: "the other replica got it only after the promotion (a frozen master resumed)",
			samples: map[string][]relSample{
				a: {master(0, 100), replica(5000, b, 99)},
				b: {replica(0, a, 99), replica(1900, a, 99), master(2000, 99)},
				c: {replica(0, a, 99), replica(1950, a, 100), replica(2500, b, 99)},
			},
			faults: []*relFaultRec{{kind: relFaultStop, label: "stop", nodes: []string{a}, from: at(10), to: at(1940)}},
			lost:   relAck{seq: 100, addr: a, at: at(5)},
			want:   relLossKilled,
		},
		{
			name: "the replica that had it was frozen at the promotion",
			samples: map[string][]relSample{
				a: {master(0, 100), replica(5000, b, 99)},
				b: {replica(0, a, 99), replica(1900, a, 99), master(2000, 99)},
				c: {replica(0, a, 99), replica(100, a, 100)},
			},
			faults: []*relFaultRec{
				{kind: relFaultKill, label: "kill", nodes: []string{a}, from: at(10), to: at(4000)},
				{kind: relFaultStop, label: "stop", nodes: []string{c}, from: at(150), to: at(6000)},
			},
			lost: relAck{seq: 100, addr: a, at: at(5)},
			want: relLossKilled,
		},
		{
			name: "acknowledged by the isolated old master after the promotion",
			samples: map[string][]relSample{
				a: {master(0, 50), master(3000, 300), replica(9000, b, 60)},
				b: {replica(0, a, 50), master(2000, 50), master(8000, 60)},
				c: {replica(0, a, 50), replica(2500, b, 50)},
			},
			faults: []*relFaultRec{{kind: relFaultIsolate, label: "master cut off", nodes: []string{a}, from: at(100), to: at(8500)}},
			lost:   relAck{seq: 200, addr: a, at: at(2500)},
			want:   relLossCutOff,
		},
		{
			name: "host cut off before the promotion",
			samples: map[string][]relSample{
				a: {master(0, 50), replica(9000, b, 60)},
				b: {replica(0, a, 40), master(2000, 40)},
				c: {replica(0, a, 40), replica(2500, b, 40)},
			},
			faults: []*relFaultRec{{kind: relFaultHostCut, label: "host cut off", hosts: []string{"h1"}, from: at(100), to: at(8500)}},
			lost:   relAck{seq: 45, addr: a, at: at(500)},
			want:   relLossCutOff,
		},
		{
			// The soak of 2026-12-01 (seed 1796169294740354715): a master
			// whose replicas were frozen or cut away acknowledged writes,
			// then was cut off before any replica synced; the replica
			// promoted then (b) had none of them. Later the old master
			// came back and followed a (the earlier master).
			name: "promoted after the write, while the master was cut from it",
			samples: map[string][]relSample{
				a: {master(0, 40), replica(9000, c, 60), master(20000, 80)},
				b: {replica(0, a, 40), replica(1500, c, 40), master(2000, 40)},
				c: {master(0, 40), replica(30000, a, 80)},
			},
			faults: []*relFaultRec{{kind: relFaultCutApart, label: "two hosts cut apart", hosts: []string{"h2", "h3"}, from: at(100), to: at(1000)}},
			lost:   relAck{seq: 45, addr: c, at: at(500)},
			want:   relLossCutOff,
		},
		{
			name: "acknowledged just before the cut came in",
			samples: map[string][]relSample{
				a: {master(0, 50), replica(9000, b, 60)},
				b: {replica(0, a, 40), master(2000, 40)},
				c: {replica(0, a, 40), replica(2500, b, 40)},
			},
			faults: []*relFaultRec{{kind: relFaultHostCut, label: "host cut off", hosts: []string{"h1"}, from: at(520), to: at(8500)}},
			lost:   relAck{seq: 45, addr: a, at: at(500)},
			want:   relLossCutOff,
		},
		{
			// The loss schedule of 2026-12-05: the master frozen for 2 s,
			// a replica promoted and every Sentinel switched before it
			// resumed; a write the client had sent while it was frozen
			// was acknowledged on its resume, before its demotion.
			name: "sent to the frozen master, acknowledged on its resume after the promotion",
			samples: map[string][]relSample{
				a: {master(0, 40), master(2100, 41), replica(12000, b, 60)},
				b: {replica(0, a, 40), master(1900, 40)},
				c: {replica(0, a, 40), replica(1950, b, 40)},
			},
			faults: []*relFaultRec{{kind: relFaultStop, label: "SIGSTOP of the master, short", nodes: []string{a}, from: at(0), to: at(2003)}},
			lost:   relAck{seq: 41, addr: a, at: at(2006), sent: at(1800)},
			want:   relLossKilled,
		},
		{
			name: "sent after the frozen master resumed, acknowledged before its demotion",
			samples: map[string][]relSample{
				a: {master(0, 40), master(2100, 41), replica(12000, b, 60)},
				b: {replica(0, a, 40), master(1900, 40)},
				c: {replica(0, a, 40), replica(1950, b, 40)},
			},
			faults: []*relFaultRec{{kind: relFaultStop, label: "SIGSTOP of the master, short", nodes: []string{a}, from: at(0), to: at(2003)}},
			lost:   relAck{seq: 41, addr: a, at: at(2100), sent: at(2090)},
			want:   relLossReturned,
		},
		{
			// The loss schedule of 2026-12-05, guarded: the frozen master
			// resumed and acknowledged a write its replicas still counted
			// as in sync, while the promotion its freeze led to was
			// completing (the first sample of b as master came after).
			name: "acknowledged by the resumed master while the promotion completed",
			samples: map[string][]relSample{
				a: {master(0, 40), master(2100, 41), replica(12000, b, 60)},
				b: {replica(0, a, 40), replica(2050, a, 40), master(2150, 40)},
				c: {replica(0, a, 40), replica(2200, b, 40)},
			},
			faults: []*relFaultRec{{kind: relFaultStop, label: "SIGSTOP of the master, short", nodes: []string{a}, from: at(0), to: at(2003)}},
			lost:   relAck{seq: 41, addr: a, at: at(2010), sent: at(2005)},
			want:   relLossReturned,
		},
		{
			name: "nothing explains it",
			samples: map[string][]relSample{
				a: {master(0, 50), replica(9000, b, 60)},
				b: {replica(0, a, 40), master(2000, 40)},
				c: {replica(0, a, 40), replica(2500, b, 40)},
			},
			lost: relAck{seq: 45, addr: a, at: at(500)},
			want: relLossOther,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := &relLedger{samples: tc.samples, faults: tc.faults, hostOf: map[string]string{a: "h1", b: "h2", c: "h3"}}
			got := l.classifyOne(tc.lost)
			if got.class != tc.want {
				t.Errorf("class %v, want %v (fault %q, trace %s)", got.class, tc.want, got.fault, got.trace)
			}
		})
	}
}
