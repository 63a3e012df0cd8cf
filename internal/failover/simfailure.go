package failover

// SimFailure is the bit set of SENTINEL SIMULATE-FAILURE flags: the
// points of a failover where a Sentinel crashes on purpose.
type SimFailure int

// The failure simulation flags, with Redis's bit values.
const (
	SimCrashAfterElection  SimFailure = 1 << 0
	SimCrashAfterPromotion SimFailure = 1 << 1
)
