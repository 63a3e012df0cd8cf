package respserver

import (
	"fmt"
	"syscall"
)

// reservedFDs is how many file descriptors Redis keeps for itself beyond
// maxclients (CONFIG_MIN_RESERVED_FDS): listeners, links, the log, scripts.
const reservedFDs = 32

// adjustOpenFilesLimit is Redis's adjustOpenFilesLimit: it raises the open
// files limit to maxclients+32 if it is lower, or to the highest value it
// can, and returns the maxclients that fits, logging as Redis does. A limit
// of 32 or less is an error: the server cannot start.
func adjustOpenFilesLimit(maxclients int, log Logger) (int, error) {
	want := uint64(maxclients) + reservedFDs
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		log.Warningf("Unable to obtain the current NOFILE limit (%s), assuming 1024 and setting the max clients configuration accordingly.", err)
		return 1024 - reservedFDs, nil
	}
	old := lim.Cur
	if old >= want {
		return maxclients, nil
	}
	best := want
	var setErr error
	for best > old {
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: best, Max: max(best, lim.Max)}); err == nil {
			break
		} else {
			setErr = err
		}
		if best < 16 {
			best = old
			break
		}
		best -= 16
	}
	best = max(best, old)
	if best >= want {
		log.Noticef("Increased maximum number of open files to %d (it was originally set to %d).", want, old)
		return maxclients, nil
	}
	if best <= reservedFDs {
		return 0, fmt.Errorf("Your current 'ulimit -n' of %d is not enough for the server to start. Please increase your open file limit to at least %d. Exiting.", old, want)
	}
	reduced := int(best) - reservedFDs
	log.Warningf("You requested maxclients of %d requiring at least %d max file descriptors.", maxclients, want)
	log.Warningf("Server can't set maximum open files to %d because of OS error: %s.", want, strerror(setErr))
	log.Warningf("Current maximum open files is %d. maxclients has been reduced to %d to compensate for low ulimit. If you need higher maxclients increase 'ulimit -n'.", best, reduced)
	return reduced, nil
}

// strerror writes an errno as C's strerror does (capitalised).
func strerror(err error) string {
	if err == nil {
		return "Success"
	}
	s := err.Error()
	if s != "" && s[0] >= 'a' && s[0] <= 'z' {
		s = string(s[0]-'a'+'A') + s[1:]
	}
	return s
}
