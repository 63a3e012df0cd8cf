package view

import "slices"

// ChunkWriter sets masters of a View whose chunks start as another
// View's: the chunk list and a chunk are copied on their first change,
// and shared otherwise.
type ChunkWriter struct {
	// Chunks are the chunks being written, the other View's until the
	// first change.
	Chunks []*Chunk
	copied []bool // chunks copied already; nil while none is
}

// Set makes mv the k-th master.
func (w *ChunkWriter) Set(k int, mv *Master) {
	c, j := k/ChunkSize, k%ChunkSize
	if w.Chunks[c][j] == mv {
		return
	}
	if w.copied == nil {
		w.Chunks = slices.Clone(w.Chunks)
		w.copied = make([]bool, len(w.Chunks))
	}
	if !w.copied[c] {
		chunk := *w.Chunks[c]
		w.Chunks[c] = &chunk
		w.copied[c] = true
	}
	w.Chunks[c][j] = mv
}

// Changed reports whether Set changed any master.
func (w *ChunkWriter) Changed() bool { return w.copied != nil }
