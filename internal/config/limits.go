package config

import "strings"

// OutputLimit is one class of client-output-buffer-limit: the hard and
// soft limits in bytes (0 = none) and how long the soft one may be
// exceeded.
type OutputLimit struct {
	Hard, Soft  uint64
	SoftSeconds int64
}

// ClientLimits are the client buffer directives the Sentinel port
// honours. The rewrite keeps their lines as written (they are in the
// table's accepted-and-ignored part, whose lines pass through), so they
// are read back from Config.Ignored rather than from Server fields.
type ClientLimits struct {
	// QueryBufferLimit is client-query-buffer-limit in bytes, 0 when not
	// set (Redis's 1gb applies).
	QueryBufferLimit uint64
	// MaxBulkLen is proto-max-bulk-len in bytes, 0 when not set (512mb).
	MaxBulkLen uint64
	// Normal and PubSub are the client-output-buffer-limit classes that
	// apply to a Sentinel's clients; HasNormal and HasPubSub say whether
	// the configuration set them (otherwise Redis's defaults apply:
	// normal 0 0 0, pubsub 32mb 8mb 60).
	Normal, PubSub       OutputLimit
	HasNormal, HasPubSub bool
}

// ClientLimits returns the client buffer directives of the configuration,
// the last line of each winning as in Redis. The values were validated
// when the file was parsed.
func (c *Config) ClientLimits() ClientLimits {
	var l ClientLimits
	for _, line := range c.Ignored {
		args := line.Args
		switch args[0] {
		case "client-query-buffer-limit":
			l.QueryBufferLimit, _ = memtoull(args[1])
		case "proto-max-bulk-len":
			l.MaxBulkLen, _ = memtoull(args[1])
		case "client-output-buffer-limit":
			for j := 1; j+3 < len(args); j += 4 {
				hard, _ := memtoull(args[j+1])
				soft, _ := memtoull(args[j+2])
				secs, _, _ := cStrtoll(args[j+3], 10)
				ol := OutputLimit{Hard: hard, Soft: soft, SoftSeconds: secs}
				switch strings.ToLower(args[j]) {
				case "normal":
					l.Normal, l.HasNormal = ol, true
				case "pubsub":
					l.PubSub, l.HasPubSub = ol, true
				}
			}
		}
	}
	return l
}
