package node

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestReleaseTextPages gives back the test binary's pages and checks that
// its file-backed RSS fell and that the code still runs.
func TestReleaseTextPages(t *testing.T) {
	before := rssFileKB(t)
	advised := releaseTextPages()
	after := rssFileKB(t)
	if advised == 0 {
		t.Fatal("no mapping advised")
	}
	if after >= before {
		t.Fatalf("RssFile %d kB after releasing %d bytes, %d kB before: want less", after, advised, before)
	}
	t.Logf("RssFile %d kB → %d kB (%d bytes of mappings advised)", before, after, advised)
	// The code and data given back come back on use.
	if got := strconv.Itoa(12345); got != "12345" {
		t.Fatalf("strconv.Itoa after the release: %q", got)
	}
}

// rssFileKB reads RssFile from /proc/self/status.
func rssFileKB(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip(err)
	}
	for l := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(l, "RssFile:"); ok {
			n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Skip("no RssFile in /proc/self/status")
	return 0
}

// TestTextMappings checks which mappings releaseTextPages advises: the
// read-only private ones of the file holding pc, not its writable data,
// not a read-only one with private copies (a relocated RELRO segment), not
// another file's.
func TestTextMappings(t *testing.T) {
	const smaps = `00400000-00a0a000 r-xp 00000000 fe:00 9980065                            /usr/bin/go-sentinel
Size:               6184 kB
Rss:                5224 kB
Anonymous:             0 kB
VmFlags: rd ex mr mw me sd 
00a0a000-0110f000 r--p 0060a000 fe:00 9980065                            /usr/bin/go-sentinel
Size:               7188 kB
Anonymous:             0 kB
VmFlags: rd mr mw me sd 
0110f000-01110000 r--p 00d0f000 fe:00 9980065                            /usr/bin/go-sentinel
Anonymous:             4 kB
0118a000-0119b000 rw-p 00d8a000 fe:00 9980065                            /usr/bin/go-sentinel
Anonymous:            68 kB
7fecd7969000-7fecd7abf000 r-xp 00026000 fe:00 326269                     /usr/lib/x86_64-linux-gnu/libc.so.6
Anonymous:             0 kB
7ffcd93a4000-7ffcd93c5000 rw-p 00000000 00:00 0                          [stack]
Anonymous:            12 kB
`
	maps := parseSmaps(strings.NewReader(smaps))
	if len(maps) != 6 {
		t.Fatalf("parsed %d mappings, want 6: %+v", len(maps), maps)
	}
	got := textMappings(maps, 0x00412345)
	want := []mapping{
		{start: 0x00400000, end: 0x00a0a000, readOnlyPrivate: true, dev: "fe:00", inode: 9980065},
		{start: 0x00a0a000, end: 0x0110f000, readOnlyPrivate: true, dev: "fe:00", inode: 9980065},
	}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("textMappings = %+v, want %+v", got, want)
	}
	if got := textMappings(maps, 0x1000); got != nil {
		t.Fatalf("textMappings of an unmapped pc = %+v, want none", got)
	}
}
