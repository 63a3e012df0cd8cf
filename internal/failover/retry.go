package failover

// RetryAt is when a Sentinel may start another failover of a master, in
// Unix milliseconds: 2 × failover-timeout after its previous start or
// after it voted for another leader (Redis's sentinelStartFailoverIfNeeded;
// started is that time, 0 for never, and timeout failover-timeout in
// milliseconds).
func RetryAt(started, timeout int64) int64 { return started + RetryFactor*timeout }

// RetryFactor is the multiple of failover-timeout RetryAt waits, for the
// texts that name it.
const RetryFactor = 2
