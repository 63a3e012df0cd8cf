package respserver

import (
	"fmt"
	"os"
	"testing"
)

// TestMain runs every test twice: with plain TCP clients served by event
// loops (loop.go), then by goroutines, the path of TLS and unix socket
// clients, of systems without epoll and of Options.Loops < 0.
func TestMain(m *testing.M) {
	if code := m.Run(); code != 0 {
		os.Exit(code)
	}
	useLoops = false
	fmt.Println("respserver: again, with goroutine-served clients")
	os.Exit(m.Run())
}
