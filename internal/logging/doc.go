// Package logging writes log lines in the exact format of redis-sentinel
// 7.0.15 on top of zap:
//
//	<pid>:X <DD> <Mon> <YYYY> <HH>:<MM>:<SS>.<mmm> <c> <message>
//
// where <c> is '.' for debug, '-' for verbose, '*' for notice and '#' for
// warning. The destination is standard output or a file opened in append
// mode (so logrotate's copytruncate works); Logger.Reopen re-opens the file
// after it was moved away (for SIGHUP).
//
// With Options.Format FormatJSON (`log-format json`, a go-sentinel
// extension) every line is instead one JSON object with level (Redis's
// name), ts, msg, pid and the line's structured fields (LogFields).
package logging
