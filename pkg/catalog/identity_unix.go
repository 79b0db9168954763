//go:build unix

package catalog

import (
	"fmt"
	"time"

	"golang.org/x/sys/unix"
)

// fileIdentity names a file's present content without reading it: its
// device, inode, size, and modification and change times. Writing to the
// file changes its change time, which no user can set back, and replacing
// it (an editor's save by rename) changes its inode. changed is when the
// file last changed.
func fileIdentity(path string) (identity string, changed time.Time, err error) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return "", time.Time{}, err
	}
	mtime := time.Unix(st.Mtim.Unix())
	ctime := time.Unix(st.Ctim.Unix())
	identity = fmt.Sprintf("unix %d %d %d %d %d", st.Dev, st.Ino, st.Size, mtime.UnixNano(), ctime.UnixNano())
	if ctime.After(mtime) {
		return identity, ctime, nil
	}
	return identity, mtime, nil
}
