package links

import (
	"fmt"
	"os"
	"testing"
)

// TestMain runs every test twice: with plain TCP links served by an event
// loop (loop.go), then by goroutines, the path of TLS links and of systems
// without epoll.
func TestMain(m *testing.M) {
	if code := m.Run(); code != 0 {
		os.Exit(code)
	}
	useLoops = false
	fmt.Println("links: again, with goroutine-served links")
	os.Exit(m.Run())
}
