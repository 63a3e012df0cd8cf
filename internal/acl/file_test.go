package acl

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSaveFileIsAtomic checks that ACL SAVE replaces the aclfile through
// a temporary file: the file keeps its permission bits (it holds password
// hashes), nothing is left behind, and a failed save leaves the old file.
func TestSaveFileIsAtomic(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "users.acl")
	const old = "user default on nopass ~* &* +@all\n"
	if err := os.WriteFile(file, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	u, err := Load(Options{File: file})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := u.SetUser("bob", []string{"on", ">pw"}); err != nil {
		t.Fatal(err)
	}
	if err := u.SaveFile(); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(file)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("aclfile mode after save: %v %v", fi.Mode(), err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("files left in the directory: %v", entries)
	}
	if os.Geteuid() == 0 {
		t.Skip("root ignores directory permissions")
	}
	if err := os.WriteFile(file, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o500); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Chmod(dir, 0o700) })
	err = u.SaveFile()
	if err == nil || !strings.HasPrefix(err.Error(), "writing ACL file for ACL SAVE: ") {
		t.Fatalf("save into a read-only directory: %v", err)
	}
	if data, _ := os.ReadFile(file); string(data) != old {
		t.Errorf("failed save changed the file: %q", data)
	}
}
