package node

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"reflect"
	"strconv"

	"golang.org/x/sys/unix"
)

// releaseTextPages unmaps the process's pages of its own executable's
// read-only segments (code, read-only data, the function tables) with
// madvise(MADV_DONTNEED), and returns how many bytes of mappings it
// advised. The pages stay in the page cache, so the next instruction or
// lookup that needs one maps it again with a minor fault; only the pages a
// daemon touches after the call count in its RSS again.
//
// Start-up touches most of the binary once (every package's init, the
// config parser, the runtime's checks of its tables) and Linux maps a
// file's pages 64 KiB around each fault, so an idle Sentinel's RSS holds
// about 11 MB of a 20 MB binary of which it uses a few. Only mappings of
// the file that holds this function's code are touched, only those without
// write permission, and only those without a private (copied-on-write)
// page: dropping such a page would bring back the file's bytes, which a
// relocated read-only segment (a position-independent build's RELRO) no
// longer matches. It returns 0 where /proc/self/smaps cannot be read.
func releaseTextPages() int {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return 0
	}
	maps := parseSmaps(f)
	f.Close()
	advised := 0
	for _, m := range textMappings(maps, uint64(reflect.ValueOf(releaseTextPages).Pointer())) {
		if _, _, errno := unix.Syscall(unix.SYS_MADVISE, uintptr(m.start), uintptr(m.end-m.start), unix.MADV_DONTNEED); errno == 0 {
			advised += int(m.end - m.start)
		}
	}
	return advised
}

// textMappings returns the mappings among maps that releaseTextPages may
// advise: those of the file mapped at pc, without write permission and
// without a private page.
func textMappings(maps []mapping, pc uint64) []mapping {
	var file mapping
	for _, m := range maps {
		if m.start <= pc && pc < m.end {
			file = m
			break
		}
	}
	if file.inode == 0 {
		return nil
	}
	var text []mapping
	for _, m := range maps {
		if m.dev == file.dev && m.inode == file.inode && m.readOnlyPrivate && m.anonymousKB == 0 {
			text = append(text, m)
		}
	}
	return text
}

// mapping is one entry of /proc/self/smaps, with the fields
// releaseTextPages needs.
type mapping struct {
	start, end uint64
	// readOnlyPrivate is true for a private mapping that may be read but
	// not written ("r-xp", "r--p").
	readOnlyPrivate bool
	dev             string
	inode           uint64
	// anonymousKB is the mapping's private copies of pages, in KiB.
	anonymousKB uint64
}

// parseSmaps reads the mappings of a /proc/PID/smaps file; lines it does
// not recognise are skipped.
func parseSmaps(r io.Reader) []mapping {
	var maps []mapping
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Bytes()
		if v, ok := bytes.CutPrefix(line, []byte("Anonymous:")); ok {
			if len(maps) > 0 {
				fields := bytes.Fields(v)
				if len(fields) > 0 {
					maps[len(maps)-1].anonymousKB, _ = strconv.ParseUint(string(fields[0]), 10, 64)
				}
			}
			continue
		}
		fields := bytes.Fields(line)
		// A mapping's header: "start-end perms offset dev inode [path]".
		if len(fields) < 5 || len(fields[1]) != 4 {
			continue
		}
		lo, hi, ok := bytes.Cut(fields[0], []byte("-"))
		if !ok {
			continue
		}
		start, err1 := strconv.ParseUint(string(lo), 16, 64)
		end, err2 := strconv.ParseUint(string(hi), 16, 64)
		inode, err3 := strconv.ParseUint(string(fields[4]), 10, 64)
		if err1 != nil || err2 != nil || err3 != nil {
			continue
		}
		perms := fields[1]
		maps = append(maps, mapping{
			start:           start,
			end:             end,
			readOnlyPrivate: perms[0] == 'r' && perms[1] == '-' && perms[3] == 'p',
			dev:             string(fields[3]),
			inode:           inode,
		})
	}
	return maps
}
