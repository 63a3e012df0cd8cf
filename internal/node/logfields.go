package node

import (
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/go-sentinel/go-sentinel/internal/event"
	"github.com/go-sentinel/go-sentinel/internal/logging"
)

// FieldLogger is a Logger that can attach an event's fields to its line
// (logging.Logger: written with log-format json, dropped in Redis's
// format, where the line stays redis-sentinel's byte for byte).
type FieldLogger interface {
	LogFields(level logging.Level, msg string, fields ...zap.Field)
}

// logLevel maps the core's level onto the logger's.
func logLevel(l event.Level) logging.Level {
	switch l {
	case event.LevelDebug:
		return logging.LevelDebug
	case event.LevelVerbose:
		return logging.LevelVerbose
	case event.LevelNotice:
		return logging.LevelNotice
	default:
		return logging.LevelWarning
	}
}

// eventFields are the structured fields of an event's log line: type,
// then the instance it is about (role, name, ip, port; absent for events
// about no instance), the master it belongs to, the current epoch; and
// for +failover-timeline the timeline it carries.
func eventFields(ev event.Event) []zap.Field {
	tl := ev.Timeline
	f := make([]zap.Field, 0, 10)
	f = append(f, zap.String("type", string(ev.Type)))
	if ev.Role != "" {
		f = append(f, zap.String("role", ev.Role), zap.String("name", ev.Name),
			zap.String("ip", ev.Addr.Host), zap.Int("port", ev.Addr.Port))
	}
	if ev.Master != "" {
		f = append(f, zap.String("master", ev.Master))
	}
	f = append(f, zap.Uint64("epoch", ev.Epoch))
	if tl != nil {
		f = append(f, zap.Bool("led", tl.Led), zap.Object("phases_ms", phaseDurations(*tl)),
			zap.Int64("total_ms", tl.Total().Milliseconds()), zap.Array("timeline", timelineMarks(*tl)))
	}
	return f
}

// phaseDurations is a timeline as {"<phase>": <ms until the next phase>,
// ...} in phase order, leaving out the last phase (which ends it).
type phaseDurations event.Timeline

func (p phaseDurations) MarshalLogObject(enc zapcore.ObjectEncoder) error {
	tl := event.Timeline(p)
	d := tl.Durations()
	for k := 0; k+1 < len(tl.Marks); k++ {
		enc.AddInt64(string(tl.Marks[k].Phase), d[k].Milliseconds())
	}
	return nil
}

// timelineMarks is a timeline as [{"phase":..., "at":..., "ms":...,
// "note":...}, ...], every mark with its start time and note.
type timelineMarks event.Timeline

func (t timelineMarks) MarshalLogArray(enc zapcore.ArrayEncoder) error {
	tl := event.Timeline(t)
	d := tl.Durations()
	for k, m := range tl.Marks {
		if err := enc.AppendObject(markObject{m, d[k]}); err != nil {
			return err
		}
	}
	return nil
}

type markObject struct {
	m event.Mark
	d time.Duration
}

func (o markObject) MarshalLogObject(enc zapcore.ObjectEncoder) error {
	enc.AddString("phase", string(o.m.Phase))
	enc.AddString("at", o.m.At.UTC().Format("2006-01-02T15:04:05.000Z07:00"))
	enc.AddInt64("ms", o.d.Milliseconds())
	if o.m.Note != "" {
		enc.AddString("note", o.m.Note)
	}
	return nil
}
