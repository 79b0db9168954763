package sources

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	utilnet "k8s.io/apimachinery/pkg/util/net"
)

// MaxURLSize is the most read from one URL. The server's 3 MiB limit is
// per object; a URL is often a release's whole bundle of CRDs (the
// largest operators' bundles are a few MiB), so the cap is set well
// above them and only stops a download that is not a manifest at all.
const MaxURLSize = 64 << 20

var errTooLarge = fmt.Errorf("larger than %d MiB, the most read from a URL", MaxURLSize>>20)

// url reads one URL: its text named by the URL, so that positions read
// URL:line:col.
func (s *Sources) url(raw string) ([]manifest.Text, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("not a URL")
	}
	if u.Scheme == "http" && !s.o.InsecureHTTP {
		return nil, errors.New("http:// is not encrypted: anyone on the way may change what is read; use https://, or --insecure-http to read it anyway")
	}
	if raw, ok := githubRaw(u); ok {
		return nil, fmt.Errorf("a GitHub page, not the file: read %s", raw)
	}
	data, err := s.fetch(u)
	if err != nil {
		return nil, err
	}
	return []manifest.Text{{Name: raw, Data: data}}, nil
}

// githubRaw is the raw address of a file GitHub shows at a "blob" page
// (github.com/OWNER/REPO/blob/REF/PATH): the page is HTML.
func githubRaw(u *url.URL) (string, bool) {
	if u.Host != "github.com" && u.Host != "www.github.com" || u.Query().Get("raw") == "true" {
		return "", false
	}
	parts := strings.SplitN(strings.TrimPrefix(u.Path, "/"), "/", 4)
	if len(parts) < 4 || parts[2] != "blob" {
		return "", false
	}
	return "https://raw.githubusercontent.com/" + parts[0] + "/" + parts[1] + "/" + parts[3], true
}

// fetch gets u's body, through the cache when there is one.
func (s *Sources) fetch(u *url.URL) ([]byte, error) {
	ctx := context.Background()
	if s.o.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.o.Timeout)
		defer cancel()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/yaml, application/json;q=0.9, */*;q=0.8")
	cached := s.cached(u.String())
	if cached.header != "" {
		req.Header.Set(cached.header, cached.value)
	}
	resp, err := s.client().Do(req)
	if err != nil {
		return nil, s.fetchError(err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotModified && cached.header != "":
		return cached.read()
	case resp.StatusCode != http.StatusOK:
		return nil, errors.New(resp.Status)
	case resp.ContentLength > MaxURLSize: // said before it is sent
		return nil, errTooLarge
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, MaxURLSize+1))
	if err != nil {
		return nil, s.fetchError(err)
	}
	if len(data) > MaxURLSize {
		return nil, errTooLarge
	}
	switch {
	case cached.body == "":
	case resp.Header.Get("ETag") != "":
		cached.write("If-None-Match", resp.Header.Get("ETag"), data)
	case resp.Header.Get("Last-Modified") != "":
		cached.write("If-Modified-Since", resp.Header.Get("Last-Modified"), data)
	default:
		if _, said := s.uncached.LoadOrStore(u.String(), true); !said && s.o.Warn != nil {
			s.o.Warn(fmt.Sprintf("%s answers with neither an ETag nor a Last-Modified date: --url-cache-dir keeps nothing of it, and it is read again each time", u))
		}
	}
	return data, nil
}

// fetchError says why a fetch failed without Go's `Get "URL":` before it
// (the URL is said once, before the message).
func (s *Sources) fetchError(err error) error {
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout() {
		return fmt.Errorf("no answer within %s (--request-timeout)", s.o.Timeout)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// client fetches through the environment's proxy (HTTPS_PROXY, NO_PROXY
// with CIDRs), as client-go reaches a cluster, and refuses a redirect
// from https:// to http:// unless http:// is allowed.
func (s *Sources) client() *http.Client {
	transport := s.o.Transport
	if transport == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.Proxy = utilnet.NewProxierWithNoProxyCIDR(http.ProxyFromEnvironment)
		transport = t
	}
	return &http.Client{
		Transport: transport,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= 10 {
				return errors.New("more than 10 redirects")
			}
			if req.URL.Scheme == "http" && !s.o.InsecureHTTP {
				return fmt.Errorf("redirected to %s, which is not encrypted (--insecure-http reads it anyway)", req.URL)
			}
			return nil
		},
	}
}

// cacheEntry is a URL's place in the cache: its body, and the request
// header that asks whether it changed (If-None-Match with the ETag, or
// If-Modified-Since with the Last-Modified date) with its value.
type cacheEntry struct {
	body          string // "" : no cache
	header, value string // "": nothing kept
}

// cached is u's entry (empty without a cache dir or a body kept).
func (s *Sources) cached(u string) cacheEntry {
	if s.o.CacheDir == "" {
		return cacheEntry{}
	}
	sum := sha256.Sum256([]byte(u))
	e := cacheEntry{body: filepath.Join(s.o.CacheDir, hex.EncodeToString(sum[:]))}
	if v, err := os.ReadFile(e.body + ".validator"); err == nil {
		if header, value, ok := strings.Cut(string(v), "\n"); ok && (header == "If-None-Match" || header == "If-Modified-Since") {
			e.header, e.value = header, value
		}
	}
	return e
}

func (e cacheEntry) read() ([]byte, error) { return os.ReadFile(e.body) }

// write keeps a body with the header and value that ask whether it
// changed; a cache that cannot be written is left as it is (the fetch
// answered).
func (e cacheEntry) write(header, value string, data []byte) {
	if e.body == "" || os.MkdirAll(filepath.Dir(e.body), 0o755) != nil {
		return
	}
	// The old validator goes first: a body without one is never asked
	// for, so a write cut short leaves no stale answer.
	_ = os.Remove(e.body + ".validator")
	if writeFile(e.body, data) == nil {
		_ = writeFile(e.body+".validator", []byte(header+"\n"+value))
	}
}

// writeFile writes a file whole or not at all (another run may read it).
func writeFile(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".fetch-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}
