// Package docs opens the reference kubectl crd docs writes in headless
// Chromium (Debian's package), as a reader would: from disk, with and
// without JavaScript, light and dark, on a desktop and a phone's width.
package docs

import (
	"context"
	"fmt"
	"math"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/test/harness"
)

var (
	bin      *harness.Bin
	repoRoot string
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	var err error
	if repoRoot, err = filepath.Abs("../.."); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if bin, err = harness.Build(repoRoot); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer bin.Remove()
	return m.Run()
}

// chromium finds Debian's Chromium (or another Chrome), or skips the test;
// CI installs it, so there a missing browser fails.
func chromium(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("CI installs Chromium (.ci/run), but there is none on PATH")
	}
	t.Skip("no chromium on PATH (Debian's chromium package; .ci/run installs it)")
	return ""
}

// browser is a headless Chromium tab and the console messages of its pages.
type browser struct {
	ctx      context.Context
	mu       sync.Mutex
	messages []chromedp.ConsoleMessage
}

func newBrowser(t *testing.T) *browser {
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromium(t)), chromedp.NoSandbox, chromedp.WindowSize(1280, 900))
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(allocCtx)
	b := &browser{ctx: ctx}
	if err := chromedp.Do(ctx); err != nil { // starts the browser
		t.Fatal(err)
	}
	listen, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for m, err := range chromedp.Console(listen) {
			if err != nil {
				return
			}
			b.mu.Lock()
			b.messages = append(b.messages, m)
			b.mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		stop()
		<-done
		cancel()
		cancelAlloc()
	})
	return b
}

// errors are the console's errors and uncaught exceptions so far.
func (b *browser) errors() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []string
	for _, m := range b.messages {
		if m.Type == chromedp.ConsoleException || m.Type == "error" || m.Type == "assert" {
			out = append(out, fmt.Sprintf("%s (%s:%d)", m, m.URL, m.Line+1))
		}
	}
	return out
}

func (b *browser) do(t *testing.T, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatal(err)
	}
}

func eval[T any](t *testing.T, b *browser, js string) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	return v
}

// site writes the reference of the test CRDs and the example's, and
// returns its directory and the kinds the CRD files define.
func site(t *testing.T) (string, []string) {
	dir := t.TempDir()
	crdDirs := []string{filepath.Join(repoRoot, "test/testdata/crds"), filepath.Join(repoRoot, "examples/crds")}
	r := bin.Run(t, "kubectl-crd", nil, "docs", "--crds", crdDirs[0], "--crds", crdDirs[1], "--output-dir", dir)
	if r.Code != 0 {
		t.Fatalf("docs: exit %d\n%s", r.Code, r.Stderr)
	}
	files, err := catalog.ReadFiles(crdDirs, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	crds, err := files.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, c := range crds {
		kinds = append(kinds, c.Spec.Names.Kind)
	}
	slices.Sort(kinds)
	return dir, kinds
}

func fileURL(dir, name string) string {
	return (&url.URL{Scheme: "file", Path: filepath.Join(dir, name)}).String()
}

func TestReferenceInChromium(t *testing.T) {
	dir, kinds := site(t)
	b := newBrowser(t)
	index := fileURL(dir, "index.html")

	// The index lists every kind, and the search finds a field by part of
	// its path and takes the reader to it.
	b.do(t, chromedp.Navigate(index), chromedp.WaitVisible(chromedp.ID("search")))
	listed := eval[[]string](t, b, `Array.from(document.querySelectorAll("main tbody tr td:first-child a")).map(a => a.textContent).sort()`)
	if !slices.Equal(listed, kinds) {
		t.Errorf("the index lists %v, want %v", listed, kinds)
	}
	const anchor = "v1.spec.rules.weight"
	b.do(t,
		chromedp.SendKeys(chromedp.ID("search"), "rules.weig"),
		chromedp.WaitVisible(chromedp.CSS(`#search-results a[href$="#`+anchor+`"]`)),
		chromedp.Click(chromedp.CSS(`#search-results a[href$="#`+anchor+`"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[id="`+anchor+`"]`)),
	)
	if loc := eval[string](t, b, `location.pathname.split("/").pop() + location.hash`); loc != "features.schema.example.com.html#"+anchor {
		t.Errorf("the search result opened %s", loc)
	}
	if text := eval[string](t, b, `document.getElementById("`+anchor+`").textContent`); !strings.Contains(text, "weight") || !strings.Contains(text, "10") {
		t.Errorf("the field's element reads %q, want its name and its default", text)
	}

	// A page with several versions shows one at a time; the switcher and
	// an anchor of another version both change it.
	page := fileURL(dir, "crontabs.stable.example.com.html")
	b.do(t, chromedp.Navigate(page), chromedp.WaitVisible(chromedp.ID("version")))
	shown := `Array.from(document.querySelectorAll("section.version")).filter(s => !s.hidden).map(s => s.id)`
	if v := eval[[]string](t, b, shown); !slices.Equal(v, []string{"v1"}) {
		t.Errorf("at first the page shows %v, want the storage version v1", v)
	}
	if text := eval[string](t, b, `document.querySelector("section.version:not([hidden]) pre.sample").textContent`); !strings.Contains(text, "kind: CronTab") || !strings.Contains(text, "name: crontab-sample") {
		t.Errorf("the version's sample reads %q", text)
	}
	b.do(t, chromedp.SetValue(chromedp.ID("version"), "v1beta1"))
	eval[bool](t, b, `document.getElementById("version").dispatchEvent(new Event("change"))`)
	if v := eval[[]string](t, b, shown); !slices.Equal(v, []string{"v1beta1"}) {
		t.Errorf("after choosing v1beta1 the page shows %v", v)
	}
	eval[string](t, b, `location.hash = "v1.spec.maxReplicas"`) // a link within the page: no load, a hashchange
	b.do(t, chromedp.WaitVisible(chromedp.CSS(`[id="v1.spec.maxReplicas"]`)))
	if v := eval[[]string](t, b, shown); !slices.Equal(v, []string{"v1"}) {
		t.Errorf("an anchor of v1 shows %v", v)
	}

	// Accessible: a language, one h1, the search box labelled, and text
	// colours with a contrast of at least 4.5:1, in both schemes.
	for _, scheme := range []string{"light", "dark"} {
		b.do(t, chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
			_, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
				Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}})
			return err
		}))
		for _, url := range []string{index + "?q=spec", fileURL(dir, "features.schema.example.com.html")} {
			b.do(t, chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS("h1")))
			if got := eval[bool](t, b, `document.documentElement.lang === "en" && document.querySelectorAll("h1").length === 1 && Array.from(document.querySelectorAll("input, select")).every(e => document.querySelector('label[for="' + e.id + '"]'))`); !got {
				t.Errorf("%s (%s): no language, not one h1, or a control without a label", url, scheme)
			}
			bg := eval[string](t, b, `getComputedStyle(document.body).backgroundColor`)
			if dark := bg == "rgb(13, 17, 23)"; dark != (scheme == "dark") {
				t.Errorf("%s: the %s scheme has the background %s", url, scheme, bg)
			}
			colours := eval[map[string]string](t, b, `(() => {
				const out = {};
				for (const e of document.querySelectorAll("body, a, code, .badge, .note, .label, code.type, td.description, th")) {
					const name = e.tagName.toLowerCase() + (e.className ? "." + e.className.split(" ").join(".") : "");
					out[name] = getComputedStyle(e).color;
				}
				return out;
			})()`)
			for name, fg := range colours {
				if c := contrast(fg, bg); c < 4.5 {
					t.Errorf("%s (%s): %s has the colour %s on %s, a contrast of %.2f", url, scheme, name, fg, bg, c)
				}
			}
			shot, err := chromedp.Run(b.ctx, chromedp.FullScreenshot(100))
			if err != nil {
				t.Fatal(err)
			}
			saveScreenshot(t, fmt.Sprintf("%s-%s.png", strings.TrimSuffix(filepath.Base(strings.Split(url, "?")[0]), ".html"), scheme), shot)
		}
	}

	// A phone's width: the page does not scroll sideways.
	b.do(t, chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2)), chromedp.Navigate(fileURL(dir, "features.schema.example.com.html")), chromedp.WaitVisible(chromedp.CSS("h1")))
	if w := eval[float64](t, b, `document.documentElement.scrollWidth`); w > 390 {
		t.Errorf("at 390 px the page is %v px wide", w)
	}
	shot, err := chromedp.Run(b.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	saveScreenshot(t, "features-phone.png", shot)

	// JavaScript off: every version and every field is on the page, and
	// no control that needs a script is shown.
	b.do(t, chromedp.EmulateViewport(1280, 900), chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		_, err := chromedp.Call(ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true})
		return err
	}), chromedp.Navigate(page), chromedp.WaitVisible(chromedp.CSS("h1")))
	if v := eval[[]string](t, b, shown); len(v) != 2 {
		t.Errorf("without JavaScript the page shows the versions %v, want both", v)
	}
	if hidden := eval[bool](t, b, `document.querySelector("form.versions").hidden && document.getElementById("v1.spec") !== null`); !hidden {
		t.Errorf("without JavaScript the version switcher shows, or the fields are missing")
	}

	if errs := b.errors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}

// saveScreenshot keeps a screenshot in KUBECTL_CRD_SCREENSHOTS when set (to
// look at), else in the test's temporary directory.
func saveScreenshot(t *testing.T, name string, png []byte) {
	dir := os.Getenv("KUBECTL_CRD_SCREENSHOTS")
	if dir == "" {
		dir = t.TempDir()
	}
	if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// contrast is WCAG's contrast ratio of two CSS rgb() colours.
func contrast(a, b string) float64 {
	la, lb := luminance(a), luminance(b)
	return (math.Max(la, lb) + 0.05) / (math.Min(la, lb) + 0.05)
}

func luminance(css string) float64 {
	var r, g, b float64
	if _, err := fmt.Sscanf(strings.NewReplacer("rgba(", "rgb(").Replace(css), "rgb(%f, %f, %f", &r, &g, &b); err != nil {
		return math.NaN()
	}
	lin := func(c float64) float64 {
		c /= 255
		if c <= 0.03928 {
			return c / 12.92
		}
		return math.Pow((c+0.055)/1.055, 2.4)
	}
	return 0.2126*lin(r) + 0.7152*lin(g) + 0.0722*lin(b)
}
