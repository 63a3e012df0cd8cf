package config

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/go-sentinel/go-sentinel/internal/settings"
	"github.com/go-sentinel/go-sentinel/internal/splitargs"
)

// readsFiles reports whether a config text has an `include` or a
// `sentinel state-config-file` line, which would make the fuzzer read
// arbitrary files (or /dev/zero) from the disk.
func readsFiles(text string) bool {
	for _, l := range strings.Split(text, "\n") {
		args, err := splitargs.Split(strings.TrimSpace(l))
		if err != nil || len(args) == 0 {
			continue
		}
		if strings.EqualFold(args[0], "include") || (len(args) > 1 && strings.EqualFold(args[0], "sentinel") && strings.EqualFold(args[1], "state-config-file")) {
			return true
		}
	}
	return false
}

// FuzzParse feeds a config file and command-line arguments (NUL-separated)
// through the entry points the binary uses: ArgsToLines and ParseWith (what
// Load calls after reading the file), then, for an accepted config, Format
// (--check) and the rewrite. Nothing may panic; an error must be a *Error
// naming a line of the input; an accepted config rewritten and parsed again
// must give back the same state, and so must its state-config-file
// (StateBytes) read under a config file that names it and nothing else,
// the config file with a state file that removed a master, and that pair
// folded back into one config file (MergedBytes, the rollback).
func FuzzParse(f *testing.F) {
	for _, name := range []string{"debian-sentinel.conf", "upstream-sentinel.conf"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b), "")
	}
	f.Add("port 26379\nsentinel monitor mymaster 127.0.0.1 6379 2\nsentinel down-after-milliseconds mymaster 5000\n", "--port\x0026380\x00--sentinel")
	f.Add("sentinel monitor m ::1 6379 1\nsentinel known-replica m ::1 6380\nsentinel known-sentinel m 10.0.0.1 26379 0123456789012345678901234567890123456789\nsentinel config-epoch m 7\n", "")
	f.Add("user default on nopass ~* &* +@all\nuser bob on >pw -@all +ping\nrename-command CONFIG \"\"\n", "--requirepass\x00\"a b\"")
	f.Add("sentinel monitor \"a b\" 127.0.0.1 1 1\nsentinel auth-pass \"a b\" 'x\\'y'\nsentinel rename-command \"a b\" CONFIG x\n", "")
	f.Add("client-output-buffer-limit pubsub 32mb 8mb 60\nmaxclients 1\nclient-query-buffer-limit 1mb\nproto-max-bulk-len 1mb\n", "")
	f.Add("sentinel announce-ip \"\\x00\"\nsentinel resolve-hostnames yes\nsentinel monitor h host.example 1 1\n", "--sentinel\x00announce-port 1")
	f.Add("dir /\nbind * -::*\ntls-port 0\nloglevel verbose\n", "--save")
	f.Fuzz(func(t *testing.T, text, argv string) {
		var args []string
		if argv != "" {
			args = strings.Split(argv, "\x00")
		}
		extra, err := ArgsToLines(args)
		if err != nil {
			return
		}
		if readsFiles(text) || readsFiles(extra) {
			t.Skip("include lines read files")
		}
		const file = "/fuzz/sentinel.conf"
		c, err := ParseWith(file, []byte(text), args, Options{Cwd: "/"})
		if err != nil {
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("error %v (%T) is not a *config.Error", err, err)
			}
			if pe.Line < 1 || pe.Line > strings.Count(text+"\n"+extra, "\n")+1 {
				t.Fatalf("error at line %d of a %d-line input: %v", pe.Line, strings.Count(text, "\n")+1, err)
			}
			return
		}
		_ = Format(c)
		cwd := c.WorkDir
		if cwd == "" {
			cwd = "/"
		}
		out := RewriteBytes([]byte(text), c.Server, c.Sentinel, RewriteOptions{Cwd: cwd})
		again, err := ParseWith(file, out, nil, Options{Cwd: "/"})
		if err != nil {
			t.Fatalf("the rewritten config does not parse: %v\n%s", err, out)
		}
		if !reflect.DeepEqual(again.Sentinel, c.Sentinel) {
			t.Fatalf("the rewritten config reads back differently:\n got %+v\nwant %+v\n%s", again.Sentinel, c.Sentinel, out)
		}
		state := filepath.Join(t.TempDir(), "state.conf")
		sb := StateBytes(c.Server.Loglevel, c.Sentinel, StateBase{}, RewriteOptions{Cwd: cwd})
		if err := os.WriteFile(state, sb, 0o644); err != nil {
			t.Fatal(err)
		}
		main := "sentinel state-config-file " + splitargs.Repr(state) + "\n"
		fromState, err := ParseWith(file, []byte(main), nil, Options{Cwd: cwd})
		if err != nil {
			t.Fatalf("the state file does not load: %v\n%s", err, sb)
		}
		if !reflect.DeepEqual(fromState.Sentinel, c.Sentinel) || fromState.Server.Loglevel != c.Server.Loglevel {
			t.Fatalf("the state file reads back differently:\n got %+v\nwant %+v\n%s", fromState.Sentinel, c.Sentinel, sb)
		}
		// The shape a restart reads: the same config file naming the state
		// file, written as a delta over the config file (the base) by a
		// runtime that removed the first master (SENTINEL REMOVE), learned
		// a myid and an epoch, and took the second master's settings back
		// to their defaults and emptied its lists: config and state give
		// back the state, the removed master does not come back.
		seeds := make([]string, 0, len(c.Sentinel.Masters))
		for _, m := range c.Sentinel.Masters {
			seeds = append(seeds, m.Name)
		}
		want := runtimeChanges(c.Sentinel)
		base := StateBase{Loglevel: c.Server.Loglevel, Sentinel: c.Sentinel, Masters: seeds}
		sb = StateBytes("debug", want, base, RewriteOptions{Cwd: cwd})
		if err := os.WriteFile(state, sb, 0o644); err != nil {
			t.Fatal(err)
		}
		merged, err := ParseWith(file, []byte(text+"\n"+main), args, Options{Cwd: "/"})
		if err != nil {
			t.Fatalf("the config file and its state file do not load: %v\n%s", err, sb)
		}
		if !reflect.DeepEqual(withoutIdentityRenames(merged.Sentinel), withoutIdentityRenames(want)) || merged.Server.Loglevel != "debug" {
			t.Fatalf("the config file and its state file read back differently:\n got %+v\nwant %+v\n%s", merged.Sentinel, want, sb)
		}
		// The rollback: the state folded into the config file
		// (check --print-merged) loads alone to the same state.
		onDisk := filepath.Join(filepath.Dir(state), "sentinel.conf")
		if err := os.WriteFile(onDisk, []byte(text+"\n"+main), 0o644); err != nil {
			t.Fatal(err)
		}
		m := *merged
		m.File, m.WorkDir = onDisk, cwd
		folded, err := MergedBytes(&m)
		if err != nil {
			t.Fatal(err)
		}
		back, err := ParseWith(file, folded, nil, Options{Cwd: "/"})
		if err != nil {
			t.Fatalf("the merged config does not load: %v\n%s", err, folded)
		}
		if !reflect.DeepEqual(withoutIdentityRenames(back.Sentinel), withoutIdentityRenames(want)) || back.StateFile != "" {
			t.Fatalf("the merged config reads back differently:\n got %+v\nwant %+v\n%s", back.Sentinel, want, folded)
		}
	})
}

// runtimeChanges returns p as a runtime may have changed it: its first
// master removed, a new myid and a later epoch, announce-ip cleared, and
// its second master's settings back to their defaults with its lists
// emptied (the state file's forms of a default and of an empty list).
func runtimeChanges(p settings.Persisted) settings.Persisted {
	want := p
	want.MyID = "feedfeedfeedfeedfeedfeedfeedfeedfeedfeed"
	if want.CurrentEpoch < math.MaxUint64 {
		want.CurrentEpoch++
	}
	want.AnnounceIP = ""
	want.SentinelPass = ""
	want.DenyScriptsReconfig = !want.DenyScriptsReconfig
	want.Masters = nil
	if len(p.Masters) > 1 {
		want.Masters = append(want.Masters, p.Masters[1:]...)
		m := settings.NewMasterSpec(want.Masters[0].Name, want.Masters[0].Addr, want.Masters[0].Quorum)
		m.ConfigEpoch, m.LeaderEpoch = want.Masters[0].ConfigEpoch, want.Masters[0].LeaderEpoch
		want.Masters[0] = m
	}
	return want
}

// withoutIdentityRenames returns p without the renames of a command to
// itself, which mean "not renamed" (the state file writes them so).
func withoutIdentityRenames(p settings.Persisted) settings.Persisted {
	out := p
	out.Masters = make([]settings.MasterSpec, len(p.Masters))
	for i, m := range p.Masters {
		var rs []settings.Rename
		for _, r := range m.RenameCommands {
			if !strings.EqualFold(r.Command, r.Renamed) {
				rs = append(rs, r)
			}
		}
		m.RenameCommands = rs
		out.Masters[i] = m
	}
	return out
}
