package transcript

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRun runs a small transcript whose command echoes its input in upper
// case, with comments and blank lines kept.
func TestRun(t *testing.T) {
	path := filepath.Join(t.TempDir(), "echo.txt")
	text := "# a comment\n\nupper\nab\ncd\n----\nAB\nCD\n\nupper\n----\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	var seen []Block
	Run(t, path, func(b Block) []string {
		seen = append(seen, b)
		var out []string
		for _, l := range b.Input {
			out = append(out, strings.ToUpper(l))
		}
		return out
	})
	if len(seen) != 2 || seen[0].Line != 3 || seen[1].Line != 10 || seen[0].Fields()[0] != "upper" {
		t.Fatalf("blocks %+v", seen)
	}
}
