// Package transcript runs the project's transcript tests: text files of
// blocks, each a command line, optional input lines, a `----` line, then
// the expected output up to a blank line; lines starting with # (and
// blank lines) between blocks are comments. The core's interactions, the
// simulator's fleets and the leaves' rules are tested this way, after
// etcd-io/raft's datadriven interaction files. With -rewrite the files
// are rewritten with what the commands produced instead of compared, so a
// change of behaviour reads as a diff.
package transcript

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// rewrite is the -rewrite flag of every test binary that imports this
// package.
var rewrite = flag.Bool("rewrite", false, "rewrite the expected output of the transcripts")

// Block is one command of a transcript.
type Block struct {
	// Path and Line (1-based) locate the command line.
	Path string
	Line int
	// Cmd is the command line; Input the lines between it and `----`.
	Cmd   string
	Input []string
}

// Fields splits the command line on white space.
func (b Block) Fields() []string { return strings.Fields(b.Cmd) }

// Glob runs every file matching pattern as a subtest named after the
// file, calling file for each; it fails when nothing matches.
func Glob(t *testing.T, pattern string, file func(t *testing.T, path string)) {
	t.Helper()
	files, err := filepath.Glob(pattern)
	if err != nil || len(files) == 0 {
		t.Fatalf("no transcripts match %s: %v", pattern, err)
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txt"), func(t *testing.T) { file(t, f) })
	}
}

// Run reads the transcript at path and hands each block to run, which
// returns the block's output lines; a mismatch with the expected output
// is a test error naming the block, or, with -rewrite, the file is
// rewritten with the output instead.
func Run(t testing.TB, path string, run func(b Block) []string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	var out strings.Builder
	for k := 0; k < len(lines); k++ {
		line := lines[k]
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			out.WriteString(line + "\n")
			continue
		}
		b := Block{Path: path, Line: k + 1, Cmd: line}
		for k++; k < len(lines) && lines[k] != "----"; k++ {
			b.Input = append(b.Input, lines[k])
		}
		if k >= len(lines) {
			t.Fatalf("%s:%d: block without ----", path, b.Line)
		}
		var want []string
		for k++; k < len(lines) && lines[k] != ""; k++ {
			want = append(want, lines[k])
		}
		got := run(b)
		out.WriteString(line + "\n")
		for _, l := range b.Input {
			out.WriteString(l + "\n")
		}
		out.WriteString("----\n")
		for _, l := range got {
			out.WriteString(l + "\n")
		}
		if k < len(lines) {
			out.WriteString("\n")
		}
		if !*rewrite && strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s:%d: %s\n--- want\n%s\n--- got\n%s", path, b.Line, line, strings.Join(want, "\n"), strings.Join(got, "\n"))
		}
	}
	if *rewrite {
		text := strings.TrimRight(out.String(), "\n") + "\n"
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
