//go:build gendocs

package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/go-sentinel/go-sentinel/internal/buildinfo"
)

// Names of the files gendocs writes under its completion/ directory, as
// bash-completion, zsh and fish look them up.
const (
	bashCompletionFile = "go-sentinel"
	zshCompletionFile  = "_go-sentinel"
	fishCompletionFile = "go-sentinel.fish"
)

// manExtra is the part of go-sentinel(1) that the command tree does not
// hold: the daemon's contract with its supervisor. It is roff, inserted
// before SEE ALSO.
const manExtra = `.SH SIGNALS
.TP
\fBSIGTERM\fP, \fBSIGINT\fP
Persist the state to the configuration file, close the listeners and exit 0.
.TP
\fBSIGHUP\fP
Reopen the log file and reload the TLS certificates.
.SH ENVIRONMENT
.TP
\fBNOTIFY_SOCKET\fP
With \fB\-\-supervised systemd\fP (or \fBauto\fP), the socket READY=1 is sent
to once the port is open, as Type=notify units expect.
.SH FILES
.TP
\fI/etc/go\-sentinel/sentinel.conf\fP
The configuration go\-sentinel.service runs with. go\-sentinel rewrites it to
persist its state (myid, epochs, known replicas and Sentinels) through a
temporary file in the same directory: the file and its directory must be
writable by the user the daemon runs as.
.TP
\fI/etc/redis/sentinel.conf\fP
Debian's redis\-sentinel configuration, used unchanged when the drop\-in
shipped with go\-sentinel points redis\-sentinel.service at go\-sentinel.
.SH EXIT STATUS
0 after a clean shutdown; 1 when the configuration is invalid or cannot be
written, or the port cannot be bound (the reason is logged, as redis does).
`

// manSeeAlso is appended to the SEE ALSO line of go-sentinel(1).
const manSeeAlso = `, \fBredis\-sentinel(1)\fP, \fBredis\-cli(1)\fP, \fBsystemd.service(5)\fP`

// addDocsCommand adds the hidden `gendocs DIR` subcommand to root: it writes
// the man pages of root and its subcommands to DIR/man1 and the bash, zsh
// and fish completions to DIR/completion, all generated from the command
// tree so they cannot drift from it. `make install` and `make deb` build the
// binary with -tags gendocs to run it; the daemon itself is built without,
// so it does not link the man page renderer (cobra/doc, go-md2man,
// blackfriday, yaml: about 1 MB).
func addDocsCommand(root *cobra.Command) {
	var date string
	cmd := &cobra.Command{
		Use:    "gendocs DIR",
		Short:  "Write the man pages and shell completions into DIR",
		Hidden: true,
		Args:   cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			when, err := docsDate(date, os.Getenv("SOURCE_DATE_EPOCH"))
			if err != nil {
				return err
			}
			return genDocs(root, args[0], when)
		},
	}
	cmd.Flags().StringVar(&date, "date", "", "date of the man pages, YYYY-MM-DD (default: $SOURCE_DATE_EPOCH, else today)")
	root.AddCommand(cmd)
}

// docsDate returns the date the man pages carry: flag (YYYY-MM-DD) when
// set, else the Unix time in epoch (SOURCE_DATE_EPOCH, for reproducible
// builds) when set, else now.
func docsDate(flag, epoch string) (time.Time, error) {
	switch {
	case flag != "":
		t, err := time.Parse(time.DateOnly, flag)
		if err != nil {
			return time.Time{}, fmt.Errorf("gendocs: --date: %w", err)
		}
		return t, nil
	case epoch != "":
		var sec int64
		if _, err := fmt.Sscan(epoch, &sec); err != nil {
			return time.Time{}, fmt.Errorf("gendocs: SOURCE_DATE_EPOCH %q: %w", epoch, err)
		}
		return time.Unix(sec, 0).UTC(), nil
	}
	return time.Now().UTC(), nil
}

// genDocs writes the man pages and completions of root under dir.
func genDocs(root *cobra.Command, dir string, date time.Time) error {
	manDir := filepath.Join(dir, "man1")
	compDir := filepath.Join(dir, "completion")
	for _, d := range []string{manDir, compDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return fmt.Errorf("gendocs: %w", err)
		}
	}
	// The HISTORY section would only repeat the date and name the generator.
	root.DisableAutoGenTag = true
	header := &doc.GenManHeader{
		Section: "1",
		Date:    &date,
		Source:  "go-sentinel " + buildinfo.Version,
		Manual:  "go-sentinel Manual",
	}
	if err := doc.GenManTree(root, header, manDir); err != nil {
		return fmt.Errorf("gendocs: man pages: %w", err)
	}
	if err := extendRootPage(filepath.Join(manDir, root.Name()+".1")); err != nil {
		return err
	}
	comps := []struct {
		name string
		gen  func(io.Writer) error
	}{
		{bashCompletionFile, func(w io.Writer) error { return root.GenBashCompletionV2(w, true) }},
		{zshCompletionFile, root.GenZshCompletion},
		{fishCompletionFile, func(w io.Writer) error { return root.GenFishCompletion(w, true) }},
	}
	for _, c := range comps {
		var b bytes.Buffer
		if err := c.gen(&b); err != nil {
			return fmt.Errorf("gendocs: %s: %w", c.name, err)
		}
		if err := os.WriteFile(filepath.Join(compDir, c.name), b.Bytes(), 0o644); err != nil {
			return fmt.Errorf("gendocs: %w", err)
		}
	}
	return nil
}

// extendRootPage inserts manExtra before the SEE ALSO section of the man
// page at path and adds the related pages to that section.
func extendRootPage(path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("gendocs: %w", err)
	}
	page := string(b)
	const seeAlso = ".SH SEE ALSO\n"
	i := strings.Index(page, seeAlso)
	if i < 0 {
		return fmt.Errorf("gendocs: %s: no SEE ALSO section", path)
	}
	rest := page[i+len(seeAlso):]
	line, after, _ := strings.Cut(rest, "\n")
	page = page[:i] + manExtra + seeAlso + line + manSeeAlso + "\n" + after
	if err := os.WriteFile(path, []byte(page), 0o644); err != nil {
		return fmt.Errorf("gendocs: %w", err)
	}
	return nil
}
