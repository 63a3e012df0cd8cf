//go:build !unix

package respserver

// tryWrite writes nothing inline where there are no unix sockets: every
// reply goes to the writer goroutine.
func (c *Client) tryWrite(b []byte) int { return 0 }

// tryRead reads nothing without waiting where there are no unix sockets:
// a pipeline is grouped only as far as one read took it.
func (c *Client) tryRead(b []byte) int { return 0 }
