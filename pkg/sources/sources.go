// Package sources reads CRDs and objects from where they live when that
// is not a file on this machine: standard input, a URL (an operator's
// release), a git revision of the repository the command runs in (the CRD
// before this change), what Flux applies from a cluster directory
// (flux:PATH, see package flux), and a Helm chart (the CRDs of its crds/
// files).
// It is the one reader of these for every verb: the factory makes a
// Sources from the flags, and every reader of paths (manifest.OpenPaths,
// manifest.ReadPaths, catalog.ReadFiles) asks it first.
package sources

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/kubectl-crd/kubectl-crd/pkg/flux"
	"github.com/kubectl-crd/kubectl-crd/pkg/helmchart"
	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
)

// Options say how sources are read.
type Options struct {
	// Stdin is read for "-".
	Stdin io.Reader
	// Timeout bounds the fetch of one URL, as --request-timeout bounds a
	// request to the cluster (0: no bound but the connection's own).
	Timeout time.Duration
	// CacheDir keeps what URLs answered, by URL with its ETag (or else
	// its Last-Modified), and asks again with If-None-Match (or
	// If-Modified-Since) ("": nothing is kept). An answer with neither is
	// not kept, and Warn is told once.
	CacheDir string
	// Warn is told what the user should know and is not an error (nil:
	// nothing is said).
	Warn func(string)
	// InsecureHTTP lets http:// URLs be read, unencrypted.
	InsecureHTTP bool
	// Dir is where git is asked ("": the current directory).
	Dir string
	// Transport fetches URLs (nil: one through the environment's proxy,
	// as the cluster's client goes).
	Transport http.RoundTripper
	// Flux says how flux:PATH is rendered.
	Flux flux.Options
}

// Sources reads the sources Options describe. It is a manifest.Sources.
type Sources struct {
	o     Options
	stdin manifest.Sources
	// uncached: the URLs said to be kept by neither ETag nor Last-Modified.
	uncached sync.Map
}

// New makes Sources reading as o says.
func New(o Options) *Sources {
	return &Sources{o: o, stdin: manifest.Stdin(o.Stdin)}
}

// Texts reads path when it names a source: "-", a URL (https://, or
// http:// when allowed), git:REV:PATH, flux:PATH (what Flux applies from
// a cluster directory), or a Helm chart (a directory with a Chart.yaml,
// or a .tgz). Anything else is a path for the file system.
func (s *Sources) Texts(path string, recursive bool) ([]manifest.Text, bool, error) {
	var texts []manifest.Text
	var err error
	switch {
	case path == "-":
		return s.stdin.Texts(path, recursive)
	case strings.HasPrefix(path, "https://") || strings.HasPrefix(path, "http://"):
		texts, err = s.url(path)
	case strings.HasPrefix(path, gitPrefix):
		texts, err = s.git(path, recursive)
	case strings.HasPrefix(path, flux.Prefix):
		fo := s.o.Flux
		if fo.Warn == nil {
			fo.Warn = s.o.Warn
		}
		texts, err = flux.Render(context.Background(), strings.TrimPrefix(path, flux.Prefix), fo)
	case helmchart.Is(path):
		texts, err = helmchart.Read(path)
	default:
		return nil, false, nil
	}
	if err != nil {
		return nil, true, &manifest.Error{File: path, Msg: err.Error(), Unopened: true}
	}
	return texts, true, nil
}
