package links

import (
	"fmt"
	"os"
	"testing"
)

// TestMain runs every test four times: with plain TCP links served by an
// event loop (loop.go), then by goroutines, the path of TLS links and of
// systems without epoll; each with pub/sub links riding command links
// where the instance speaks RESP3 (merge.go), then with two connections
// per instance.
func TestMain(m *testing.M) {
	for _, loops := range []bool{true, false} {
		for _, merge := range []bool{true, false} {
			useLoops, mergeLinks = loops, merge
			fmt.Printf("links: event loop %v, merged links %v\n", loops, merge)
			if code := m.Run(); code != 0 {
				os.Exit(code)
			}
		}
	}
	os.Exit(0)
}
