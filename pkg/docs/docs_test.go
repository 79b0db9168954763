package docs

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/cost"
	"github.com/kubectl-crd/kubectl-crd/pkg/explain"
	"golang.org/x/net/html"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// crdsUnder reads every CRD of the YAML files under root, each name once
// (the first file that defines it), skipping files that are not CRDs or
// are broken on purpose.
func crdsUnder(t *testing.T, root string) []*apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	var out []*apiextensionsv1.CustomResourceDefinition
	seen := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() || !strings.HasSuffix(path, ".yaml") && !strings.HasSuffix(path, ".yml") {
			return err
		}
		files, err := catalog.ReadFiles([]string{path}, nil, nil)
		if err != nil {
			return nil
		}
		list, err := files.List(context.Background())
		if err != nil {
			return nil
		}
		for _, c := range list {
			if !seen[c.Name] {
				seen[c.Name] = true
				out = append(out, c.CustomResourceDefinition)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestEveryFieldConstraintAndRuleIsOnThePages walks each schema with
// explain's walk and finds every field on its CRD's HTML page, by its
// anchor, with its type, requiredness, description, and every constraint
// and CEL rule detail, and every field heading and constraint in the
// Markdown file.
func TestEveryFieldConstraintAndRuleIsOnThePages(t *testing.T) {
	roots := []string{filepath.Join("..", "..", "test", "testdata", "crds"), filepath.Join("..", "..", "examples")}
	corpus := os.Getenv("KUBECTL_CRD_CORPUS")
	if corpus == "" {
		corpus = filepath.Join("..", "..", "..", "shared", "corpus")
	}
	if _, err := os.Stat(corpus); err == nil {
		roots = append(roots, corpus)
	}
	for _, root := range roots {
		t.Run(filepath.Base(root), func(t *testing.T) {
			crds := crdsUnder(t, root)
			if len(crds) == 0 {
				t.Fatal("no CRDs")
			}
			start := time.Now()
			site, err := Build(crds, Options{})
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			if _, err := WriteHTML(site, dir, "Test"); err != nil {
				t.Fatal(err)
			}
			if _, err := WriteMarkdown(site, filepath.Join(dir, "md"), "Test"); err != nil {
				t.Fatal(err)
			}
			t.Logf("%d CRDs written as HTML and Markdown in %v", len(crds), time.Since(start).Round(time.Millisecond))
			fields, checks := 0, 0
			for _, crd := range crds {
				page := readPage(t, filepath.Join(dir, crd.Name+".html"))
				md, err := os.ReadFile(filepath.Join(dir, "md", crd.Name+".md"))
				if err != nil {
					t.Fatal(err)
				}
				for _, v := range crd.Spec.Versions {
					root, err := explain.Schema(crd, v.Name)
					if err != nil {
						continue
					}
					if text := textOf(page[v.Name]); !strings.Contains(text, v.Name) {
						t.Errorf("%s: no section for version %s", crd.Name, v.Name)
					}
					for _, n := range explain.Walk(root, nil, true) {
						fields++
						anchor := v.Name + "." + strings.Join(n.Path, ".")
						node := resolve(page, anchor)
						if node == nil {
							t.Errorf("%s: no element with id %q", crd.Name, anchor)
							continue
						}
						text := ownText(node)
						want := []string{n.Path[len(n.Path)-1], explain.TypeName(n.Schema)}
						checks++
						if d := n.Schema.Description; d != "" {
							// A link's definition ("[1]: https://...") is
							// where the link is used.
							text, defined := linkDefinitions(d)
							got := descriptionText(node)
							if !inOrder(words(text), words(got)) {
								t.Errorf("%s: %s: the page's description %q lacks words of %q", crd.Name, anchor, got, d)
							}
							for _, url := range defined {
								if !strings.Contains(got, " "+url+" ") {
									t.Errorf("%s: %s: the page's description %q has no link to %s", crd.Name, anchor, got, url)
								}
							}
						}
						if n.Required {
							want = append(want, "required")
						}
						for _, c := range explain.Constraints(n.Schema) {
							want = append(want, c.Label(), oneLine(c.Value))
							for _, d := range c.Details() {
								want = append(want, d.Name, oneLine(d.Value))
							}
							if c.Transition {
								want = append(want, "transition rule")
							}
						}
						for _, w := range want {
							checks++
							if !strings.Contains(text, w) {
								t.Errorf("%s: %s: the page lacks %q", crd.Name, anchor, w)
							}
						}
						checks++
						if !bytes.Contains(md, []byte("`"+strings.Join(n.Path, ".")+"`\n\nType: `"+explain.TypeName(n.Schema)+"`")) {
							t.Errorf("%s: %s: the Markdown lacks the field", crd.Name, anchor)
						}
						for _, c := range explain.Constraints(n.Schema) {
							checks++
							if !bytes.Contains(md, []byte(c.Label()+": "+explain.Code(c.Value))) {
								t.Errorf("%s: %s: the Markdown lacks %s", crd.Name, anchor, c.Label())
							}
						}
					}
				}
			}
			t.Logf("%d fields, %d checks", fields, checks)
		})
	}
}

// resolve finds a field's element: its own, or where the fields of an
// ancestor are written once (the ancestor's "same fields as" link).
func resolve(page map[string]*html.Node, anchor string) *html.Node {
	for range 50 {
		if n := page[anchor]; n != nil {
			return n
		}
		moved := false
		for p := anchor; strings.Contains(p, "."); {
			p = p[:strings.LastIndex(p, ".")]
			if target := sameLink(page[p]); target != "" {
				anchor, moved = target+anchor[len(p):], true
				break
			}
		}
		if !moved {
			return nil
		}
	}
	return nil
}

// sameLink is the anchor a field's "same fields as" link points to ("":
// none).
func sameLink(n *html.Node) string {
	if n == nil {
		return ""
	}
	var found string
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil && found == ""; c = c.NextSibling {
			if c.Type == html.ElementNode && c.Data == "li" {
				continue // another field's
			}
			if c.Type == html.ElementNode && c.Data == "p" && hasClass(c, "same") {
				for a := c.FirstChild; a != nil; a = a.NextSibling {
					for _, at := range a.Attr {
						if a.Data == "a" && at.Key == "href" {
							found = strings.TrimPrefix(at.Val, "#")
						}
					}
				}
				return
			}
			walk(c)
		}
	}
	walk(n)
	return found
}

// TestRepeatedSubtreesWrittenOnce: a schema repeated under a CRD (Argo
// CD's ApplicationSet repeats its template under every generator) is
// written once and linked; the page stays under 1 MB.
func TestRepeatedSubtreesWrittenOnce(t *testing.T) {
	corpus := os.Getenv("KUBECTL_CRD_CORPUS")
	if corpus == "" {
		corpus = filepath.Join("..", "..", "..", "shared", "corpus")
	}
	argo := filepath.Join(corpus, "argo-cd", "crds")
	if _, err := os.Stat(argo); err != nil {
		t.Skipf("the corpus is not here (KUBECTL_CRD_CORPUS): %v", err)
	}
	crds := crdsUnder(t, argo)
	site, err := Build(crds, Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := WriteHTML(site, dir, "Test"); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(filepath.Join(dir, "applicationsets.argoproj.io.html"))
	if err != nil {
		t.Fatal(err)
	}
	if st.Size() > 1<<20 {
		t.Errorf("the ApplicationSet page is %d bytes, over 1 MB", st.Size())
	}
	page := readPage(t, filepath.Join(dir, "applicationsets.argoproj.io.html"))
	links := 0
	for _, n := range page {
		if sameLink(n) != "" {
			links++
		}
	}
	if links == 0 {
		t.Error("no subtree is linked rather than written again")
	}
}

// readPage parses an HTML page and maps each id to its element.
func readPage(t *testing.T, path string) map[string]*html.Node {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := html.Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]*html.Node{}
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		for _, a := range n.Attr {
			if a.Key == "id" {
				ids[a.Val] = n
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return ids
}

// ownText is a field element's text without its nested fields'.
func ownText(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && n.Data == "ul" && hasClass(n, "tree") {
			return
		}
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return oneLine(b.String())
}

func textOf(n *html.Node) string {
	if n == nil {
		return ""
	}
	var b strings.Builder
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.TextNode {
			b.WriteString(c.Data)
		} else {
			b.WriteString(textOf(c))
		}
	}
	return b.String()
}

func hasClass(n *html.Node, class string) bool {
	for _, a := range n.Attr {
		if a.Key == "class" && strings.Contains(" "+a.Val+" ", " "+class+" ") {
			return true
		}
	}
	return false
}

// oneLine folds white space, as a browser shows text.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// descriptionText is the text of a field's description as the page
// renders it (Markdown: code, lists, paragraphs), each link followed by
// where it goes; "" without one.
func descriptionText(n *html.Node) string {
	var found *html.Node
	var find func(*html.Node)
	find = func(n *html.Node) {
		if found != nil || (n.Type == html.ElementNode && n.Data == "ul" && hasClass(n, "tree")) {
			return
		}
		if n.Type == html.ElementNode && hasClass(n, "description") {
			found = n
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			find(c)
		}
	}
	find(n)
	if found == nil {
		return ""
	}
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		// An ordered list's numbers are the browser's: written here as
		// it shows them.
		number := 0
		if n.Type == html.ElementNode && n.Data == "ol" {
			number = 1
			for _, a := range n.Attr {
				if a.Key == "start" {
					number, _ = strconv.Atoi(a.Val)
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if number > 0 && c.Type == html.ElementNode && c.Data == "li" {
				fmt.Fprintf(&b, " %d ", number)
				number++
			}
			walk(c)
		}
		if n.Type == html.ElementNode && n.Data == "a" {
			for _, a := range n.Attr {
				if a.Key == "href" {
					b.WriteString(" " + a.Val + " ")
				}
			}
		}
		b.WriteString(" ")
	}
	walk(found)
	return b.String()
}

// linkDefinitions takes a Markdown text's link definitions ("[1]: URL",
// a line each) out of it, and returns what is left and their URLs.
func linkDefinitions(s string) (string, []string) {
	var kept, urls []string
	for _, line := range strings.Split(s, "\n") {
		if m := linkDefinition.FindStringSubmatch(line); m != nil {
			urls = append(urls, m[1])
			continue
		}
		kept = append(kept, line)
	}
	return strings.Join(kept, "\n"), urls
}

var linkDefinition = regexp.MustCompile(`^ {0,3}\[[^\]]+\]:\s*(\S+)\s*$`)

// words are the runs of letters and digits of s: what Markdown leaves of
// a text, whatever markup it takes away.
func words(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// inOrder tells whether want are in got, in order (others between them).
func inOrder(want, got []string) bool {
	i := 0
	for _, g := range got {
		if i < len(want) && g == want[i] {
			i++
		}
	}
	return i == len(want)
}

// TestIndexCounts: the index counts in the number it has ("1 API group").
func TestIndexCounts(t *testing.T) {
	for _, tt := range []struct {
		root, want string
	}{
		{filepath.Join("..", "..", "examples", "crds", "crontab.yaml"), "1 CustomResourceDefinition in 1 API group, as Kubernetes "},
		{filepath.Join("..", "..", "test", "testdata", "crds"), " CustomResourceDefinitions in "},
	} {
		site, err := Build(crdsUnder(t, tt.root), Options{})
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		if _, err := WriteHTML(site, dir, "Test"); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(filepath.Join(dir, "index.html"))
		if err != nil || !strings.Contains(string(data), tt.want) {
			t.Errorf("%s: the index does not say %q (%v)", tt.root, tt.want, err)
		}
	}
}

// TestRuleCostsOnThePages: every CEL rule of a page has its cost share
// beside it (kubectl crd cost's numbers), wherever the rule is: on a
// field, its items or its values.
func TestRuleCostsOnThePages(t *testing.T) {
	crds := crdsUnder(t, filepath.Join("..", "..", "test", "testdata", "cost"))
	site, err := Build(crds, Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := WriteHTML(site, dir, "Test"); err != nil {
		t.Fatal(err)
	}
	for _, crd := range crds {
		est, err := cost.Estimate(crd)
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(filepath.Join(dir, crd.Name+".html"))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := strings.Count(string(data), `class="note cost"`), len(est.Versions[0].Rules); got != want {
			t.Errorf("%s: %d rule costs on the page, %d rules", crd.Name, got, want)
		}
	}
}
