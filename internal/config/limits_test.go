package config

import "testing"

func TestClientLimits(t *testing.T) {
	for _, tc := range []struct {
		name, conf string
		want       ClientLimits
	}{
		{"none", "port 26379\n", ClientLimits{}},
		{"all", "client-query-buffer-limit 2mb\nproto-max-bulk-len 1mb\n" +
			"client-output-buffer-limit normal 1mb 512kb 10 replica 256mb 64mb 60 pubsub 64mb 16mb 30\n",
			ClientLimits{QueryBufferLimit: 2 << 20, MaxBulkLen: 1 << 20,
				Normal: OutputLimit{1 << 20, 512 << 10, 10}, HasNormal: true,
				PubSub: OutputLimit{64 << 20, 16 << 20, 30}, HasPubSub: true}},
		{"last line wins", "proto-max-bulk-len 1mb\nproto-max-bulk-len 2mb\nclient-output-buffer-limit pubsub 1mb 0 0\n",
			ClientLimits{MaxBulkLen: 2 << 20, PubSub: OutputLimit{Hard: 1 << 20}, HasPubSub: true}},
	} {
		cfg, err := ParseWith("sentinel.conf", []byte(tc.conf), nil, Options{Cwd: "/"})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := cfg.ClientLimits(); got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}
