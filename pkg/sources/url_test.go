package sources

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

const crdText = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: things.example.com\n"

// server serves /crd.yaml (with an ETag), /missing, /redirect (to
// /crd.yaml), /to-http (to an http:// address), /slow, /huge (its length
// said first) and /huge-unsaid (sent in chunks).
func server(t *testing.T, asked *atomic.Int32, notModified *atomic.Int32) *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("/crd.yaml", func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		if r.Header.Get("If-None-Match") == `"v1"` {
			notModified.Add(1)
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("ETag", `"v1"`)
		io.WriteString(w, crdText)
	})
	mux.HandleFunc("/dated.yaml", func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		const date = "Sat, 28 Nov 2026 08:00:00 GMT"
		if r.Header.Get("If-Modified-Since") == date {
			notModified.Add(1)
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("Last-Modified", date)
		io.WriteString(w, crdText)
	})
	mux.HandleFunc("/plain.yaml", func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		io.WriteString(w, crdText)
	})
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/crd.yaml", http.StatusFound)
	})
	mux.HandleFunc("/to-http", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://"+r.Host+"/crd.yaml", http.StatusFound)
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(10 * time.Second):
		case <-r.Context().Done():
		}
	})
	mux.HandleFunc("/huge", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(MaxURLSize+1))
		w.Write(make([]byte, 1<<20)) // the client stops reading before the rest
	})
	mux.HandleFunc("/huge-unsaid", func(w http.ResponseWriter, r *http.Request) {
		chunk := make([]byte, 1<<20)
		for range MaxURLSize>>20 + 1 {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})
	s := httptest.NewTLSServer(mux)
	t.Cleanup(s.Close)
	return s
}

func TestURLs(t *testing.T) {
	var asked, notModified atomic.Int32
	s := server(t, &asked, &notModified)
	src := New(Options{Transport: s.Client().Transport, Timeout: time.Second})
	for _, c := range []struct {
		path, err string
	}{
		{s.URL + "/crd.yaml", ""},
		{s.URL + "/redirect", ""},
		{s.URL + "/missing", s.URL + "/missing: 404 Not Found"},
		{s.URL + "/slow", s.URL + "/slow: no answer within 1s (--request-timeout)"},
		{s.URL + "/to-http", "which is not encrypted (--insecure-http reads it anyway)"},
		{s.URL + "/huge", "larger than 64 MiB, the most read from a URL"},
		{s.URL + "/huge-unsaid", "larger than 64 MiB, the most read from a URL"},
		{"http://127.0.0.1:1/crd.yaml", "http://127.0.0.1:1/crd.yaml: http:// is not encrypted"},
		{"https://github.com/example/operator/blob/v1.2.0/config/crd/things.yaml",
			"a GitHub page, not the file: read https://raw.githubusercontent.com/example/operator/v1.2.0/config/crd/things.yaml"},
	} {
		t.Run(strings.TrimPrefix(c.path, s.URL), func(t *testing.T) {
			src := src
			if strings.HasSuffix(c.path, "/huge-unsaid") {
				// Reading 64 MiB may take longer than the others' second
				// (under the race detector it does).
				src = New(Options{Transport: s.Client().Transport})
			}
			start := time.Now()
			texts, ok, err := src.Texts(c.path, true)
			if !ok {
				t.Fatal("a URL is not taken for a source")
			}
			if c.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				if len(texts) != 1 || texts[0].Name != c.path || string(texts[0].Data) != crdText {
					t.Fatalf("read %+v", texts)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Fatalf("got %v, want %q", err, c.err)
			}
			if time.Since(start) > 5*time.Second && !strings.HasSuffix(c.path, "/huge-unsaid") {
				t.Errorf("took %v", time.Since(start))
			}
		})
	}
}

// TestCache: with a cache directory, a URL read again is asked for with
// its ETag, and the kept text is read when the server says it has not
// changed; without one, nothing is kept.
func TestCache(t *testing.T) {
	var asked, notModified atomic.Int32
	s := server(t, &asked, &notModified)
	dir := t.TempDir()
	for i := range 3 {
		src := New(Options{Transport: s.Client().Transport, CacheDir: dir})
		texts, _, err := src.Texts(s.URL+"/crd.yaml", true)
		if err != nil {
			t.Fatal(err)
		}
		if string(texts[0].Data) != crdText {
			t.Fatalf("run %d read %q", i, texts[0].Data)
		}
	}
	if asked.Load() != 3 || notModified.Load() != 2 {
		t.Errorf("asked %d times, %d not modified; want 3, 2", asked.Load(), notModified.Load())
	}
	asked.Store(0)
	notModified.Store(0)
	for range 2 {
		if _, _, err := New(Options{Transport: s.Client().Transport}).Texts(s.URL+"/crd.yaml", true); err != nil {
			t.Fatal(err)
		}
	}
	if notModified.Load() != 0 {
		t.Errorf("without a cache, %d answers were 304", notModified.Load())
	}
}

// TestCacheWithoutETag: an answer with a Last-Modified date and no ETag is
// kept and asked for again with If-Modified-Since; an answer with neither
// is not kept, and that is said once.
func TestCacheWithoutETag(t *testing.T) {
	var asked, notModified atomic.Int32
	s := server(t, &asked, &notModified)
	dir := t.TempDir()
	var said []string
	warn := func(m string) { said = append(said, m) }
	for i := range 3 {
		src := New(Options{Transport: s.Client().Transport, CacheDir: dir, Warn: warn})
		for _, path := range []string{"/dated.yaml", "/plain.yaml", "/plain.yaml"} {
			texts, _, err := src.Texts(s.URL+path, true)
			if err != nil || string(texts[0].Data) != crdText {
				t.Fatalf("run %d, %s: %v", i, path, err)
			}
		}
	}
	if asked.Load() != 9 || notModified.Load() != 2 {
		t.Errorf("asked %d times, %d not modified; want 9, 2", asked.Load(), notModified.Load())
	}
	// Once per run (each run is a process), not once per read.
	if len(said) != 3 || !strings.Contains(said[0], "/plain.yaml answers with neither an ETag nor a Last-Modified date") {
		t.Errorf("said %q", said)
	}
}

func TestInsecureHTTP(t *testing.T) {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, crdText) }))
	defer s.Close()
	texts, _, err := New(Options{InsecureHTTP: true}).Texts(s.URL+"/crd.yaml", true)
	if err != nil || string(texts[0].Data) != crdText {
		t.Fatalf("read %v, %v", texts, err)
	}
}
