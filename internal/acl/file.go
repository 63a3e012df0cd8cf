package acl

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/go-sentinel/go-sentinel/internal/atomicfile"
)

// LoadFile replaces every user with the aclfile's. On any error
// nothing changes and the error lists every problem, in Redis's words. A
// file without `default` gets a fresh default user (on nopass ~* &*
// +@all).
func (u *Users) LoadFile() error {
	if u.file == "" {
		return ErrNoFile
	}
	data, err := os.ReadFile(u.file)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fmt.Errorf("Error loading ACLs, opening file '%s': %s", u.file, errorText(err))
	}
	users := map[string]*user{}
	var errs strings.Builder
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.Trim(line, " \t\r\n")
		if line == "" {
			continue
		}
		argv := strings.Split(line, " ")
		num := i + 1
		if argv[0] != "user" || len(argv) < 2 {
			fmt.Fprintf(&errs, "%s:%d should start with user keyword followed by the username. ", u.file, num)
			continue
		}
		name := argv[1]
		if hasSpaces(name) {
			fmt.Fprintf(&errs, "'%s:%d: username '%s' contains invalid characters. ", u.file, num, name)
			continue
		}
		if users[name] != nil {
			fmt.Fprintf(&errs, "WARNING: Duplicate user '%s' found on line %d. ", name, num)
			continue
		}
		usr := newUser(name, u.allChannels, u.surface)
		users[name] = usr
		rules, _, ok := mergeSelectorArgs(argv[2:])
		if !ok {
			fmt.Fprintf(&errs, "%s:%d: Unmatched parenthesis in selector definition.", u.file, num)
		}
		syntaxErr := false
		for _, r := range rules {
			r = strings.Trim(r, "\t\r\n")
			if err := usr.apply(r, u.allChannels); err != nil {
				if errors.Is(err, ErrUnknownCommand) {
					fmt.Fprintf(&errs, "%s:%d: Error in applying operation '%s': %s. ", u.file, num, r, err)
				} else if !syntaxErr {
					fmt.Fprintf(&errs, "%s:%d: %s. ", u.file, num, err)
					syntaxErr = true
				}
			}
		}
	}
	if errs.Len() > 0 {
		errs.WriteString("WARNING: ACL errors detected, no change to the previously active ACL rules was performed")
		return errors.New(errs.String())
	}
	if users["default"] == nil {
		users["default"] = newDefaultUser(u.surface)
	}
	u.mu.Lock()
	u.users = users
	u.mu.Unlock()
	return nil
}

// errorText is strerror's wording for the common file errors.
func errorText(err error) string {
	switch {
	case errors.Is(err, os.ErrNotExist):
		return "No such file or directory"
	case errors.Is(err, os.ErrPermission):
		return "Permission denied"
	}
	return err.Error()
}

// SaveFile writes every user to the aclfile, one `user <name> <rules>`
// line each, atomically: a crash leaves the old file or the new one, and
// the file keeps its permission bits.
func (u *Users) SaveFile() error {
	if u.file == "" {
		return ErrNoFile
	}
	var sb strings.Builder
	for _, l := range u.ConfigLines() {
		sb.WriteString("user " + strings.Join(l, " ") + "\n")
	}
	if err := atomicfile.Write(u.file, []byte(sb.String())); err != nil {
		return fmt.Errorf("writing ACL file for ACL SAVE: %w", err)
	}
	return nil
}
