// Package logging writes log lines in the exact format of redis-sentinel
// 7.0.15 on top of zap:
//
//	<pid>:X <DD> <Mon> <YYYY> <HH>:<MM>:<SS>.<mmm> <c> <message>
//
// where <c> is '.' for debug, '-' for verbose, '*' for notice and '#' for
// warning. The destination is standard output or a file opened in append
// mode (so logrotate's copytruncate works); Logger.Reopen re-opens the file
// after it was moved away (for SIGHUP).
package logging
