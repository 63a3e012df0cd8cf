package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/go-sentinel/go-sentinel/internal/commands"
	"github.com/go-sentinel/go-sentinel/internal/settings"
	"github.com/go-sentinel/go-sentinel/internal/splitargs"
)

// Config is a parsed, validated sentinel.conf plus command-line directives.
type Config struct {
	// File is the absolute path of the config file.
	File string
	// WorkDir is the absolute directory the `dir` directives lead to (the
	// process must chdir there, Redis does it while parsing); empty when
	// the configuration has no `dir`.
	WorkDir string
	// Server holds the generic server directives.
	Server Server
	// Sentinel holds the sentinel directives (masters sorted by name).
	Sentinel settings.Persisted
	// Ignored lists the valid redis.conf directives that are accepted and
	// ignored, in input order (the caller logs them at debug level).
	Ignored []Line
	// UserLines are the `user` lines, parallel to Server.Users, so that a
	// rule the ACL code rejects can be reported at its line.
	UserLines []Line
	// StateFile is the absolute path of `sentinel state-config-file`: the
	// state goes there and File is never rewritten (state.go); "" when
	// File holds the state, as in Redis.
	StateFile string
	// ConfigMasters are the names of the masters the config file itself
	// declares (its `sentinel monitor` lines, not the state file's), with
	// a StateFile: the state file lists those SENTINEL REMOVE removed
	// (StateBytes), so that they stay removed.
	ConfigMasters []string
	// StateRead: the state file existed and was read over the config
	// file (false at a first start).
	StateRead bool
	// Base is what the config file alone loads to, with a StateFile: the
	// state file is written as a delta over it (StateBase, state.go).
	Base settings.Persisted
	// BaseLoglevel is the config file's own log level, with a StateFile.
	BaseLoglevel string
	// CommandSurface is `sentinel command-surface` (go-sentinel's
	// extension): the command surface the port presents, Redis 7.0's by
	// default.
	CommandSurface commands.Surface
}

// StateBase returns the base the state file is written over: what the
// config file alone yields.
func (c *Config) StateBase() StateBase {
	return StateBase{Loglevel: c.BaseLoglevel, Sentinel: c.Base, Masters: c.ConfigMasters}
}

// Line is one configuration line.
type Line struct {
	// File is the file the line comes from (the main file for lines made
	// from command-line arguments, an included file otherwise).
	File string
	// Num is the 1-based line number.
	Num int
	// Text is the line, trimmed.
	Text string
	// Args are its words; Args[0] is the directive name, lower-cased.
	Args []string
}

// Options tune ParseWith.
type Options struct {
	// Cwd is the directory relative paths (`dir`, `include`, scripts) are
	// resolved against until a `dir` directive changes it; empty means the
	// process's working directory.
	Cwd string
}

// maxIncludeDepth bounds `include` nesting so that an include loop is an
// error instead of an endless recursion.
const maxIncludeDepth = 16

// OpenError is a config file that cannot be read; its text is Redis's
// ("can't open config file '<path>': No such file or directory").
type OpenError struct {
	Path string
	Err  error
}

func (e *OpenError) Error() string {
	return fmt.Sprintf("can't open config file '%s': %s", e.Path, strerror(e.Err))
}

func (e *OpenError) Unwrap() error { return e.Err }

// Load reads the config file at path (made absolute first), appends the
// directives made from args (see ArgsToLines) and parses the result. Unlike
// Parse it also checks, as Redis does, that the log file can be opened for
// appending (without creating it).
func Load(path string, args []string) (*Config, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("config file %s: %w", path, err)
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		return nil, &OpenError{Path: abs, Err: err}
	}
	c, err := Parse(abs, data, args)
	if err != nil {
		return nil, err
	}
	if err := checkLogfile(c); err != nil {
		return nil, err
	}
	return c, nil
}

// Parse parses data, the content of file, followed by the lines made from
// args. It changes nothing: relative paths are resolved against the
// process's working directory and the `dir` directives, without chdir.
func Parse(file string, data []byte, args []string) (*Config, error) {
	return ParseWith(file, data, args, Options{})
}

// ParseWith is Parse with options.
func ParseWith(file string, data []byte, args []string, opts Options) (*Config, error) {
	cwd := opts.Cwd
	if cwd == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("config: working directory: %w", err)
		}
		cwd = wd
	}
	cwd, err := filepath.Abs(cwd)
	if err != nil {
		return nil, fmt.Errorf("config: working directory: %w", err)
	}
	text := string(data)
	if len(args) > 0 {
		extra, err := ArgsToLines(args)
		if err != nil {
			return nil, fmt.Errorf("config: command line: %w", err)
		}
		// Redis appends the options after a newline, so their line numbers
		// follow the file's.
		text += "\n" + extra
	}
	p := &parser{
		cwd:     cwd,
		cfg:     &Config{File: file, Server: DefaultServer()},
		renames: newRenameTable(),
	}
	if err := p.parseText(file, text, 0); err != nil {
		return nil, err
	}
	statePath, stateLine := stateFilePath(p.queue, p.cwd)
	if statePath != "" && sameFile(statePath, file, cwd) {
		return nil, &Error{File: stateLine.file, Line: stateLine.num, Text: stateLine.text, Msg: msgStateIsConfig,
			Logfile: logfilePath(p.cfg.Server.Logfile, p.cfg.WorkDir, cwd)}
	}
	if statePath != "" {
		p.cfg.ConfigMasters = monitorNames(p.queue)
		// The config file alone must load (it does at a first start): it
		// is the base the state file is a delta over.
		base := newSentinelLoader(p.cwd)
		if err := base.load(p.queue); err != nil {
			return nil, err
		}
		p.cfg.Base, p.cfg.BaseLoglevel = base.persisted(), p.cfg.Server.Loglevel
		if err := p.readState(statePath); err != nil {
			return nil, err
		}
	}
	l := newSentinelLoader(p.cwd)
	if err := l.load(p.queue); err != nil {
		var e *Error
		if statePath != "" && errors.As(err, &e) && e.File == statePath {
			e.State = true
		}
		return nil, err
	}
	p.cfg.Sentinel = l.persisted()
	p.cfg.StateFile = l.stateFile
	p.cfg.CommandSurface = l.surface
	if err := p.checkSurface(l.surface); err != nil {
		return nil, err
	}
	return p.cfg, nil
}

// parser is the state of one parse: the virtual working directory (what
// Redis' chdir calls would have made it), the result and the queued
// sentinel lines.
type parser struct {
	cwd     string
	cfg     *Config
	renames renameTable
	queue   []queuedLine
	// state: the text being read is a state file (only sentinel lines
	// and loglevel).
	state bool
	// newer are the lines of directives a later command surface
	// introduced (directive.since), checked once the surface is known.
	newer []newerLine
}

// newerLine is a line of a directive known from surface since on.
type newerLine struct {
	line  Line
	since commands.Surface
}

// checkSurface refuses, as Redis 7.0.15 does (a bad directive), the first
// line of a directive that the selected command surface sf does not know.
func (p *parser) checkSurface(sf commands.Surface) error {
	for _, n := range p.newer {
		if n.since > sf {
			return &Error{File: n.line.File, Line: n.line.Num, Text: n.line.Text, Msg: msgBadDirective}
		}
	}
	return nil
}

// parseText reads every line of text, which comes from file.
func (p *parser) parseText(file, text string, depth int) error {
	for i, raw := range strings.Split(text, "\n") {
		if j := strings.IndexByte(raw, 0); j >= 0 {
			raw = raw[:j]
		}
		line := strings.Trim(raw, " \t\r\n")
		if line == "" || line[0] == '#' {
			continue
		}
		num := i + 1
		argv, err := splitargs.Split(line)
		if err != nil {
			return &Error{File: file, Line: num, Text: line, Msg: splitargs.ErrUnbalancedQuotes.Error(), Err: err}
		}
		if len(argv) == 0 {
			continue
		}
		argv[0] = asciiLower(argv[0])
		if p.state {
			if msg := stateLineMessage(argv); msg != "" {
				return &Error{File: file, Line: num, Text: line, Msg: msg}
			}
		}
		if msg, err := p.directive(file, num, line, argv, depth); err != nil {
			return err
		} else if msg != "" {
			return &Error{File: file, Line: num, Text: line, Msg: msg}
		}
	}
	return nil
}

// directive applies one line through its entry of the directive table. It
// returns Redis's message for an invalid line, or an error that already
// carries its position (from an included file).
func (p *parser) directive(file string, num int, text string, argv []string, depth int) (string, error) {
	line := Line{File: file, Num: num, Text: text, Args: argv}
	d := lookupDirective(argv[0])
	if d == nil {
		if strings.Contains(argv[0], ".") {
			// A module's config: accepted and ignored with a value.
			if len(argv) < 2 {
				return "Module config specified without value", nil
			}
			p.cfg.Ignored = append(p.cfg.Ignored, line)
			return "", nil
		}
		return msgBadDirective, nil
	}
	if msg := d.arityMessage(len(argv)); msg != "" {
		return msg, nil
	}
	if d.since != commands.Surface70 {
		p.newer = append(p.newer, newerLine{line: line, since: d.since})
	}
	vals := d.words(argv)
	if d.kind != kindLoader && d.kind != kindDeprecated {
		if msg := d.validate(vals); msg != "" {
			return msg, nil
		}
	}
	switch {
	case d.apply != nil:
		return d.apply(p, line, vals, depth)
	case d.set != nil:
		d.set(&p.cfg.Server, vals)
	default:
		p.cfg.Ignored = append(p.cfg.Ignored, line)
	}
	return "", nil
}

// resolve returns path made absolute against the virtual working directory.
func (p *parser) resolve(path string) string {
	if filepath.IsAbs(path) {
		return path
	}
	return p.cwd + string(filepath.Separator) + path
}

// chdir applies `dir`: the directory must exist and be searchable, as
// chdir(2) requires; the message is strerror's text, as Redis prints it.
func (p *parser) chdir(dir string) string {
	if dir == "" {
		return strerror(syscall.ENOENT)
	}
	target := p.resolve(dir)
	fi, err := os.Stat(target)
	if err != nil {
		return strerror(err)
	}
	if !fi.IsDir() {
		return strerror(syscall.ENOTDIR)
	}
	if err := syscall.Access(target, 1 /* X_OK */); err != nil {
		return strerror(err)
	}
	if real, err := filepath.EvalSymlinks(target); err == nil {
		target = real
	}
	p.cwd = filepath.Clean(target)
	p.cfg.Server.Dir = dir
	p.cfg.WorkDir = p.cwd
	return ""
}

// include parses the file(s) named by an `include` line: a glob pattern
// that matches nothing is skipped, a plain path must be readable.
func (p *parser) include(file string, num int, text, pattern string, depth int) error {
	fail := func(msg string, err error) error {
		return &Error{File: file, Line: num, Text: text, Msg: msg, Err: err}
	}
	if depth >= maxIncludeDepth {
		return fail("include nesting too deep (include loop?)", nil)
	}
	target := p.resolve(pattern)
	paths := []string{target}
	if strings.ContainsAny(pattern, "*?[") {
		var err error
		if paths, err = filepath.Glob(target); err != nil {
			return fail(fmt.Sprintf("Fatal error, can't open config file '%s': %v", pattern, err), err)
		}
	}
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			return fail(fmt.Sprintf("Fatal error, can't open config file '%s': %s", path, strerror(err)), err)
		}
		if err := p.parseText(path, string(data), depth+1); err != nil {
			return err
		}
	}
	return nil
}

// checkLogfile reports, as Redis does after reading the configuration,
// whether the log file can be opened for appending. It does not create the
// file: a missing file only needs a writable directory.
func checkLogfile(c *Config) error {
	if c.Server.Logfile == "" {
		return nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return fmt.Errorf("config: working directory: %w", err)
	}
	path := logfilePath(c.Server.Logfile, c.WorkDir, wd)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err == nil {
		return f.Close()
	}
	if errors.Is(err, fs.ErrNotExist) {
		if fi, serr := os.Stat(filepath.Dir(path)); serr == nil && fi.IsDir() {
			err = syscall.Access(filepath.Dir(path), 2|1 /* W_OK|X_OK */)
		}
	}
	if err == nil {
		return nil
	}
	return &Error{File: c.File, Msg: "Can't open the log file: " + strerror(err), Err: err}
}

// asciiLower lower-cases ASCII letters only, as sdstolower does.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// logfilePath returns the log file path logfile resolved as the daemon
// opens it: relative to the `dir` directive's workDir when set, else to
// cwd; "" when logfile is "" (standard output).
func logfilePath(logfile, workDir, cwd string) string {
	if logfile == "" || filepath.IsAbs(logfile) {
		return logfile
	}
	if workDir != "" {
		return filepath.Join(workDir, logfile)
	}
	return filepath.Join(cwd, logfile)
}
