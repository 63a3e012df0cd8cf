package process

import (
	"errors"
	"syscall"
	"unicode"
	"unicode/utf8"
)

// Strerror returns the C library's message for the errno inside err, as
// Redis prints it with strerror(3): "Permission denied", "No such file or
// directory". Go's errno texts are glibc's with a lower-case first letter,
// so this capitalises them. An error without an errno gives err.Error().
func Strerror(err error) string {
	if err == nil {
		return "Success"
	}
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return err.Error()
	}
	s := errno.Error()
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}
