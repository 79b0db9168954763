//go:build !unix

package catalog

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"time"
)

// fileIdentity names a file's present content: where the system has no
// change time that users cannot set, by a hash of the content itself.
// changed is when the file was last modified.
func fileIdentity(path string) (identity string, changed time.Time, err error) {
	info, err := os.Stat(path)
	if err != nil {
		return "", time.Time{}, err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", time.Time{}, err
	}
	sum := sha256.Sum256(data)
	return fmt.Sprintf("sha256 %d %s", info.Size(), hex.EncodeToString(sum[:])), info.ModTime(), nil
}
