package main

import (
	crand "crypto/rand"
	"encoding/binary"
	"math/rand"
)

// newRand returns a math/rand source seeded from crypto/rand, for ids that
// must differ between processes.
func newRand() *rand.Rand {
	var b [8]byte
	_, _ = crand.Read(b[:])
	return rand.New(rand.NewSource(int64(binary.LittleEndian.Uint64(b[:]))))
}
