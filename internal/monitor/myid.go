package monitor

import "math/rand"

// IDLength is the length of a Sentinel run id in characters.
const IDLength = 40

// GenerateID returns 40 random lower-case hex characters drawn from rnd.
func GenerateID(rnd *rand.Rand) string {
	const hex = "0123456789abcdef"
	b := make([]byte, IDLength)
	for i := range b {
		b[i] = hex[rnd.Intn(16)]
	}
	return string(b)
}
