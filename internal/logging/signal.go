package logging

import (
	"strconv"

	"go.uber.org/zap"
)

// SignalLine returns the line Redis's signal handler logs, without the
// trailing newline: `<pid>:signal-handler (<unix-seconds>) <msg>`.
func SignalLine(pid int, unix int64, msg string) string {
	return strconv.Itoa(pid) + ":signal-handler (" + strconv.FormatInt(unix, 10) + ") " + msg
}

// LogFromHandler writes SignalLine for msg, stamped with the logger's pid
// and clock, if level is enabled (Redis's serverLogFromHandler, used for
// "Received SIGTERM scheduling shutdown..."). Redis also drops these lines
// when daemonized with logfile "" — stdout is /dev/null then anyway.
// In FormatJSON it is an ordinary line with a "signal_handler" field.
func (l *Logger) LogFromHandler(level Level, msg string) error {
	if !l.Enabled(level) {
		return nil
	}
	if l.format == FormatJSON {
		l.LogFields(level, msg, zap.Bool("signal_handler", true))
		return nil
	}
	_, err := l.sink.Write([]byte(SignalLine(l.pid, l.now().Unix(), msg) + "\n"))
	return err
}
