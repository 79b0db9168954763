package factory

import (
	"strconv"
	"time"

	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	"github.com/kubectl-crd/kubectl-crd/pkg/sources"
	"github.com/spf13/pflag"
)

// sourceFlags are how paths that are not local files are read.
type sourceFlags struct {
	urlCacheDir  string
	insecureHTTP bool
}

func (s *sourceFlags) add(flags *pflag.FlagSet) {
	flags.StringVar(&s.urlCacheDir, "url-cache-dir", "", "Keep what URLs answered here, by URL and ETag (or Last-Modified), and ask again whether it changed (default: nothing kept)")
	flags.BoolVar(&s.insecureHTTP, "insecure-http", false, "Read http:// URLs: unencrypted, so anyone on the way may change the CRDs and objects read")
}

// Sources reads the paths verbs are given (--crds, -f, diff --old, the
// editor's crds setting) when they are not local files: standard input,
// URLs, git revisions, Helm charts. See package sources.
func (f *Factory) Sources() manifest.Sources {
	f.sourcesOnce.Do(func() {
		f.sources = sources.New(sources.Options{
			Stdin:        f.Streams.In,
			Timeout:      f.requestTimeout(),
			CacheDir:     f.sourceFlags.urlCacheDir,
			InsecureHTTP: f.sourceFlags.insecureHTTP,
			Warn:         f.Warn,
		})
	})
	return f.sources
}

// requestTimeout is --request-timeout as client-go reads it (a number of
// seconds or a duration; 0 or unreadable: none, client-go then refusing
// the unreadable value where a cluster is asked).
func (f *Factory) requestTimeout() time.Duration {
	if f.ConfigFlags.Timeout == nil {
		return 0
	}
	s := *f.ConfigFlags.Timeout
	if n, err := strconv.Atoi(s); err == nil {
		return time.Duration(n) * time.Second
	}
	d, _ := time.ParseDuration(s)
	return d
}
