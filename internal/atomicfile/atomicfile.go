// Package atomicfile replaces a file's content so that a crash leaves
// either the old or the new content, never a mix or a truncated file.
package atomicfile

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Seams for tests to make a step of Write fail.
var (
	renameFile = os.Rename
	syncFile   = (*os.File).Sync
)

// Write replaces path with data: it writes a temporary file
// "<path>.<random>" in the same directory, syncs it, gives it the old
// file's permission bits (0644 minus the umask for a new file), renames it
// over path and syncs the directory. On error the temporary file is
// removed and path is untouched (unless only the directory sync failed).
func Write(path string, data []byte) error {
	return WriteNew(path, data, fs.FileMode(0o644)&^umask())
}

// WriteNew is Write with the permission bits a new file gets (an existing
// file keeps its own): 0600 for a file that holds passwords and that no
// one has made yet.
func WriteNew(path string, data []byte, newMode fs.FileMode) (err error) {
	dir := filepath.Dir(path)
	mode := newMode.Perm()
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	f, err := os.CreateTemp(dir, filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	renamed := false
	defer func() {
		if f != nil {
			_ = f.Close()
		}
		if !renamed {
			_ = os.Remove(tmp)
		}
	}()
	if _, err := f.Write(data); err != nil {
		return err
	}
	if err := syncFile(f); err != nil {
		return err
	}
	if err := f.Chmod(mode); err != nil {
		return err
	}
	err = f.Close()
	f = nil
	if err != nil {
		return err
	}
	if err := renameFile(tmp, path); err != nil {
		return err
	}
	renamed = true
	return syncDir(dir)
}

// syncDir fsyncs a directory so that a rename in it is durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// umask returns the process umask, read from /proc/self/status (Linux);
// 022 when it cannot be read.
func umask() fs.FileMode {
	const fallback = 0o022
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return fallback
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "Umask:"); ok {
			n, err := strconv.ParseUint(strings.TrimSpace(v), 8, 32)
			if err != nil {
				return fallback
			}
			return fs.FileMode(n) & 0o777
		}
	}
	return fallback
}
