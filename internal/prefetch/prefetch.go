// Package prefetch reads the files that a validate command line names
// while the rest of the program initialises.
//
// Packages initialise one after the other on one core, for about 12 ms
// (API schemes, metrics, OpenAPI models), while the other core has nothing
// to do. This package imports little, so Go initialises it early (in the
// order of import paths, each package once its imports are), and its init
// starts reading and decoding the files on that core. Read hands the
// result to validate only when the flags validate parsed name exactly the
// same files: the early look at the command line decides nothing else, and
// a form it does not follow (flags before the command name, -k, stdin,
// anything but files and directories) only means the files are read at
// the usual time.
package prefetch

import (
	"io"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	"k8s.io/klog/v2"
)

// early is the reading begun at start-up, until Read takes it.
var (
	mu    sync.Mutex
	early *reading
)

// reading is manifest.ReadPathsLenient(paths, recursive, nil), in the
// background.
type reading struct {
	paths     []string
	recursive bool
	done      chan struct{}
	docs      []manifest.Document
	err       error
}

func init() {
	if paths, recursive, ok := validateInput(os.Args[1:]); ok && plain(paths) {
		early = start(paths, recursive)
	}
}

func start(paths []string, recursive bool) *reading {
	r := &reading{paths: paths, recursive: recursive, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		r.docs, r.err = manifest.ReadPathsLenient(paths, recursive, nil)
	}()
	return r
}

// Read returns manifest.ReadPathsLenient(paths, recursive, stdin): the
// documents read at start-up if they were read from these paths, else
// read now.
func Read(paths []string, recursive bool, stdin io.Reader) ([]manifest.Document, error) {
	mu.Lock()
	r := early
	early = nil
	mu.Unlock()
	if r == nil || r.recursive != recursive || !slices.Equal(r.paths, paths) {
		return manifest.ReadPathsLenient(paths, recursive, stdin)
	}
	<-r.done
	klog.V(4).Infof("%d documents from %s read while starting", len(r.docs), strings.Join(paths, ", "))
	return r.docs, r.err
}

// plain: every path is a regular file or a directory, so that reading one
// early takes nothing from anyone (as reading a pipe or a device would).
func plain(paths []string) bool {
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil || !(info.Mode().IsRegular() || info.IsDir()) {
			return false
		}
	}
	return true
}
