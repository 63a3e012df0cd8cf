//go:build !linux

package netloop

// SetBatchEnd is SetBatchEnd of Linux; there are no Loops here.
func (l *Loop) SetBatchEnd(func()) error { return ErrUnsupported }
