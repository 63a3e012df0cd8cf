package respserver

// writerStarts returns how many writer goroutines srv started.
func writerStarts(srv *Server) int64 { return srv.stats.writerStarts.Load() }
