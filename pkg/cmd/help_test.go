package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-crd/kubectl-crd/pkg/factory"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// TestHelpIsShortAndPointsToItsPage: each verb's --help is a short
// paragraph and its examples (about 25 lines before the flags), and ends
// its description with the verb's reference page, which exists.
func TestHelpIsShortAndPointsToItsPage(t *testing.T) {
	root := newRootCommand(factory.New(genericiooptions.IOStreams{}))
	for _, c := range root.Commands() {
		if c.Hidden || c.Name() == "help" || c.Name() == "version" || c.Name() == "completion" {
			continue
		}
		streams, _, out, _ := genericiooptions.NewTestIOStreams()
		if code := Run([]string{c.Name(), "--help"}, streams); code != 0 {
			t.Fatalf("%s --help: exit %d", c.Name(), code)
		}
		before, _, ok := strings.Cut(out.String(), "\nFlags:")
		if !ok {
			t.Fatalf("%s --help has no Flags section:\n%s", c.Name(), out)
		}
		if n := strings.Count(before, "\n") + 1; n > 28 {
			t.Errorf("%s --help: %d lines before the flags, want about 25:\n%s", c.Name(), n, before)
		}
		page := "docs/" + c.Name() + ".md"
		if !strings.Contains(before, "Reference: "+docsURL+c.Name()+".md") {
			t.Errorf("%s --help does not point to %s", c.Name(), page)
		}
		if _, err := os.Stat(filepath.Join("..", "..", page)); err != nil {
			t.Errorf("%s: %v", c.Name(), err)
		}
	}
}
