package packaging

import (
	"compress/gzip"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// manPages are the pages generated from the cobra commands, with the
// start of the summary each NAME line carries (the commands' Short).
var manPages = map[string]string{
	"go-sentinel.1":         "go-sentinel - A drop-in replacement for the Redis Sentinel daemon",
	"go-sentinel-check.1":   "go-sentinel-check - Validate a sentinel.conf",
	"go-sentinel-explain.1": "go-sentinel-explain - Explain why a master has or has not failed over",
	"go-sentinel-version.1": "go-sentinel-version - Print the version",
}

// readMaybeGzip returns a file's content, gunzipped when gz.
func readMaybeGzip(t *testing.T, path string, gz bool) string {
	t.Helper()
	if !gz {
		return readText(t, path)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return string(b)
}

// checkManPages checks the man pages in dir (gzipped when gz, as Debian
// ships them): a .TH header, the NAME line whatis(1) reads, the sections
// go-sentinel(1) adds to the generated text, and no warning from man(1)
// where man is installed.
func checkManPages(t *testing.T, dir string, gz bool) {
	t.Helper()
	for name, summary := range manPages {
		file := name
		if gz {
			file += ".gz"
		}
		path := filepath.Join(dir, file)
		page := readMaybeGzip(t, path, gz)
		title := strings.ToUpper(strings.TrimSuffix(name, ".1"))
		if !strings.Contains(page, `.TH "`+title+`" "1" `) {
			t.Errorf("%s: no .TH header for %s(1):\n%s", path, title, page)
		}
		if !strings.Contains(page, ".SH NAME\n"+summary) {
			t.Errorf("%s: NAME is not %q:\n%s", path, summary, page)
		}
		if strings.Contains(page, "Auto generated") {
			t.Errorf("%s names its generator instead of its source", path)
		}
		if lexgrog, err := exec.LookPath("lexgrog"); err == nil {
			out, err := exec.Command(lexgrog, path).CombinedOutput()
			if err != nil || !strings.Contains(string(out), `"`+summary) {
				t.Errorf("lexgrog %s: %v: %s", path, err, out)
			}
		}
		if man, err := exec.LookPath("man"); err == nil {
			cmd := exec.Command(man, "--warnings", "-l", path)
			cmd.Env = append(os.Environ(), "MANWIDTH=80", "MANPAGER=cat", "PAGER=cat")
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Run(); err != nil || stderr.Len() > 0 {
				t.Errorf("man --warnings -l %s: %v\n%s", path, err, stderr.String())
			}
		}
	}
	root := readMaybeGzip(t, filepath.Join(dir, "go-sentinel.1"+map[bool]string{true: ".gz"}[gz]), gz)
	for _, want := range []string{".SH SIGNALS", ".SH ENVIRONMENT", "NOTIFY_SOCKET", ".SH FILES", "/etc/go\\-sentinel/sentinel.conf", ".SH EXIT STATUS",
		`\fBgo-sentinel-check(1)\fP, \fBgo-sentinel-explain(1)\fP, \fBgo-sentinel-version(1)\fP, \fBredis\-sentinel(1)\fP`} {
		if !strings.Contains(root, want) {
			t.Errorf("go-sentinel(1) lacks %q:\n%s", want, root)
		}
	}
	if strings.Index(root, ".SH EXIT STATUS") > strings.Index(root, ".SH SEE ALSO") {
		t.Errorf("go-sentinel(1): SEE ALSO is not the last section")
	}
}

// checkCompletions checks the bash, zsh and fish completion scripts of the
// installed binary bin: each is valid for its shell where the shell is
// installed, bash's offers the subcommands, and the binary's own
// __complete (which all three call) offers files for the config path.
func checkCompletions(t *testing.T, bin, bash, zsh, fish string) {
	t.Helper()
	if out, err := exec.Command("bash", "-n", bash).CombinedOutput(); err != nil {
		t.Errorf("bash -n %s: %v\n%s", bash, err, out)
	}
	const lib = "/usr/share/bash-completion/bash_completion"
	if _, err := os.Stat(lib); err == nil {
		script := `source "$1"; source "$2"
c() { COMP_WORDS=("$@"); COMP_CWORD=$(($#-1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}; COMPREPLY=(); __start_go-sentinel 2>/dev/null; echo "${COMPREPLY[*]}"; }
c go-sentinel ""; c go-sentinel ch; c go-sentinel ver`
		cmd := exec.Command("bash", "-c", script, "bash", lib, bash)
		cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(bin)+":"+os.Getenv("PATH"))
		out, err := cmd.Output()
		want := "check explain help version\ncheck\nversion\n"
		if err != nil || string(out) != want {
			t.Errorf("bash completion of go-sentinel: %v\ngot:\n%swant:\n%s", err, out, want)
		}
	} else {
		t.Logf("%s missing (apt-get install bash-completion): bash completion not exercised", lib)
	}
	// ":0" is ShellCompDirectiveDefault: the shell completes file names.
	for _, args := range [][]string{{"/etc/redis/sent"}, {"check", "/etc/redis/sent"}} {
		out, err := exec.Command(bin, append([]string{"__complete"}, args...)...).Output()
		if lines := strings.Split(strings.TrimSpace(string(out)), "\n"); err != nil || !reflect.DeepEqual(lines, []string{":0"}) {
			t.Errorf("go-sentinel __complete %q: %v: %q, want file completion (\":0\")", args, err, out)
		}
	}
	if z := readText(t, zsh); !strings.HasPrefix(z, "#compdef go-sentinel\n") {
		t.Errorf("%s does not start with #compdef go-sentinel", zsh)
	}
	if f := readText(t, fish); !strings.Contains(f, "complete -c go-sentinel ") {
		t.Errorf("%s has no `complete -c go-sentinel`", fish)
	}
	for sh, file := range map[string]string{"zsh": zsh, "fish": fish} {
		if p, err := exec.LookPath(sh); err == nil {
			if out, err := exec.Command(p, "-n", file).CombinedOutput(); err != nil {
				t.Errorf("%s -n %s: %v\n%s", sh, file, err, out)
			}
		}
	}
}
