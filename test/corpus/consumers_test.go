package corpus

import (
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
)

// objectFiles are the corpus's objects the server created and refused, one
// file each, as the server saw them (JSON), for a consumer to check.
type objectFiles struct {
	accepted, refused []string
	source            map[string]*manifest.Document // each file's document
}

func writeObjectFiles(t *testing.T) objectFiles {
	t.Helper()
	dir := t.TempDir()
	o := objectFiles{source: map[string]*manifest.Document{}}
	write := func(prefix string, docs []manifest.Document) []string {
		var files []string
		for i, d := range docs {
			f := filepath.Join(dir, fmt.Sprintf("%s-%04d.json", prefix, i))
			if err := os.WriteFile(f, d.JSON, 0o644); err != nil {
				t.Fatal(err)
			}
			o.source[f] = &docs[i]
			files = append(files, f)
		}
		return files
	}
	o.accepted, o.refused = write("accepted", accepted), write("refused", refused)
	return o
}

func (o objectFiles) all() []string { return append(slices.Clone(o.accepted), o.refused...) }

// judgeRefusals compares a consumer's verdicts on the objects the server
// refused with the server's reasons: an object refused for a reason the
// schema states must not pass. It returns how many the consumer caught and
// how many it passed that were refused for what it does not check.
func (o objectFiles) judgeRefusals(t *testing.T, consumer string, verdict func(file string) (caught, passed bool)) (caught, beyond int) {
	t.Helper()
	reasons := serverReasons(t, o.refused)
	var missed []string
	for _, f := range o.refused {
		schemaReason := slices.ContainsFunc(reasons[f], jsonSchemaCanSay)
		switch c, p := verdict(f); {
		case c:
			caught++
		case schemaReason && p:
			missed = append(missed, fmt.Sprintf("%s: %v", o.source[f].Pos(), reasons[f]))
		default:
			beyond++
		}
	}
	sort.Strings(missed)
	for _, m := range missed {
		t.Errorf("the server refused it for a reason the schema states; %s passed it: %s", consumer, m)
	}
	return caught, beyond
}

// goInstall builds a command from the module proxy (pkg@version) into a
// directory of the test's and returns its path.
func goInstall(t *testing.T, pkg string) string {
	t.Helper()
	gobin := t.TempDir()
	cmd := exec.Command("go", "install", pkg)
	cmd.Dir = gobin
	// The build flags of the tests' go, but -mod (which go install of a
	// module at a version refuses): what both build, the standard library
	// among it, is compiled once.
	var flags []string
	for _, f := range strings.Fields(os.Getenv("GOFLAGS")) {
		if !strings.HasPrefix(f, "-mod=") {
			flags = append(flags, f)
		}
	}
	cmd.Env = append(os.Environ(), "GOBIN="+gobin, "GOFLAGS="+strings.Join(flags, " "))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("installing %s from the module proxy: %v\n%s", pkg, err, out)
	}
	name, _, _ := strings.Cut(path.Base(pkg), "@")
	return filepath.Join(gobin, name)
}
