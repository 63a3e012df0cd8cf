package view

// InfoCacheEntry is one instance's cached INFO for SENTINEL INFO-CACHE
// (Sentinel.InfoCache).
type InfoCacheEntry struct {
	Age  int64 // ms since the INFO was received
	Info string
	Has  bool // false when no INFO was ever received (null)
}
