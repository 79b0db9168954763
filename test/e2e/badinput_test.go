package e2e

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// badInput is one case of the bad-input suite: the command's whole stdout
// and stderr, its exit code, and bounds on its time and peak memory.
type badInput struct {
	name           string
	online         bool // with the test cluster's kubeconfig
	args           []string
	stdout, stderr string
	code           int
	maxTime        time.Duration // 0: 20 s
	maxRSS         int64         // 0: 256 MiB
}

// TestBadInputSuite runs kubectl crd on input it must refuse or report on:
// never a panic, a stack trace or a silent success; every message names
// the file and line where there is one.
func TestBadInputSuite(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	bad := filepath.Join(repoRoot, "test/testdata/bad")
	badcrds := filepath.Join(repoRoot, "test/testdata/badcrds")
	runaway := filepath.Join(repoRoot, "test/testdata/runaway")
	cronTabCRD := filepath.Join(repoRoot, "examples/crds/crontab.yaml")
	crontab := "apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: %s\nspec:\n"

	// A billion laughs: nine levels of nine aliases each.
	bomb := fmt.Sprintf(crontab, "laughs") + "  a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
	for c := 'b'; c <= 'j'; c++ {
		p := string(c - 1)
		bomb += fmt.Sprintf("  %c: &%c [*%s, *%s, *%s, *%s, *%s, *%s, *%s, *%s, *%s]\n", c, c, p, p, p, p, p, p, p, p, p)
	}
	// 100 MB in one document.
	huge := filepath.Join(dir, "huge.yaml")
	f, err := os.Create(huge)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(f, crontab+"  image: \"", "huge")
	chunk := []byte(strings.Repeat("x", 1<<20))
	for range 100 {
		f.Write(chunk)
	}
	f.WriteString("\"\n")
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	// Random bytes, the same each run.
	noise := make([]byte, 4096)
	rng := rand.NewChaCha8([32]byte{1})
	rng.Read(noise)
	var block strings.Builder
	block.WriteString(fmt.Sprintf(crontab, "deep"))
	for i := range 10001 {
		block.WriteString(strings.Repeat(" ", i+1) + "a:\n")
	}
	noStorage := strings.Replace(readString(t, cronTabCRD), "storage: true", "storage: false", 1)
	stricter := strings.Replace(readString(t, cronTabCRD), "maximum: 10", "maximum: 2", 1)

	cases := []badInput{{
		name:   "malformed YAML",
		args:   []string{"validate", "-f", filepath.Join(bad, "malformed.yaml"), "--offline"},
		stdout: "$REPO/test/testdata/bad/malformed.yaml:7: error: invalid YAML: did not find expected ',' or ']'\n0 valid, 0 invalid, 0 skipped, 1 error\n",
		code:   2,
	}, {
		name:   "tab in the second document, after a good one",
		args:   []string{"validate", "-f", filepath.Join(bad, "tab-in-second-doc.yaml"), "--offline"},
		stdout: "$REPO/test/testdata/bad/tab-in-second-doc.yaml:3:1: metadata.name: Required value: name or generateName is required\n$REPO/test/testdata/bad/tab-in-second-doc.yaml:9: error: invalid YAML: found character that cannot start any token\n0 valid, 1 invalid, 0 skipped, 1 error\n",
		code:   2,
	}, {
		// kubectl sends a key given twice with its last value, and the
		// server checks that: a warning at the key, then the server's
		// answer on the last value.
		name: "duplicate key, the last value valid",
		args: []string{"validate", "--offline", "-f", write("dup-valid.yaml",
			"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata:\n  a: 2\n  a: \"2\"\n")},
		stdout: "@/dup-valid.yaml:6:3: warning: duplicate key \"a\" (first at line 5); kubectl sends the last value\n1 valid, 0 invalid, 0 skipped, 0 errors\n",
	}, {
		name: "duplicate key, the last value invalid",
		args: []string{"validate", "--offline", "-f", write("dup-invalid.json",
			`{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}, "data": {"a": "2", "a": 2}}`)},
		stdout: "@/dup-invalid.json:1:70: data: ConfigMap in version \"v1\" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ConfigMap.data of type string\n" +
			"@/dup-invalid.json:1:89: warning: duplicate key \"a\" (first at line 1); kubectl sends the last value\n0 valid, 1 invalid, 0 skipped, 0 errors\n",
		code: 1,
	}, {
		name:   "a billion laughs",
		args:   []string{"validate", "-f", write("bomb.yaml", bomb), "--crds", cronTabCRD},
		stdout: "@/bomb.yaml: error: invalid YAML: document contains excessive aliasing\n0 valid, 0 invalid, 0 skipped, 1 error\n",
		code:   2,
	}, {
		name:    "a 100 MB file",
		args:    []string{"validate", "-f", huge, "--crds", cronTabCRD},
		stdout:  "@/huge.yaml:1: error: document of 100 MiB not read: documents over 64 MiB cannot be objects the API server accepts (3 MiB as JSON)\n0 valid, 0 invalid, 0 skipped, 1 error\n",
		code:    2,
		maxTime: 30 * time.Second,
		maxRSS:  400 << 20,
	}, {
		name:   "an object over the API server's 3 MiB",
		args:   []string{"validate", "-f", write("big.yaml", fmt.Sprintf(crontab, "big")+"  image: \""+strings.Repeat("x", 4<<20)+"\"\n"), "--crds", cronTabCRD},
		stdout: "@/big.yaml:1:1: error: Request entity too large: limit is 3145728\n0 valid, 1 invalid, 0 skipped, 0 errors\n",
		code:   1,
	}, {
		name:   "10,000-deep flow nesting",
		args:   []string{"validate", "-f", write("deep.yaml", fmt.Sprintf(crontab, "deep")+"  x: "+strings.Repeat("[", 10001)+strings.Repeat("]", 10001)+"\n"), "--crds", cronTabCRD},
		stdout: "@/deep.yaml:6: error: invalid YAML: exceeded max depth of 10000\n0 valid, 0 invalid, 0 skipped, 1 error\n",
		code:   2,
	}, {
		name:   "10,000-deep block nesting",
		args:   []string{"validate", "-f", write("deep-block.yaml", block.String()), "--crds", cronTabCRD},
		stdout: "@/deep-block.yaml:10005: error: invalid YAML: exceeded max depth of 10000\n0 valid, 0 invalid, 0 skipped, 1 error\n",
		code:   2,
	}, {
		name:   "10,000-deep JSON",
		args:   []string{"validate", "-f", write("deep.json", `{"apiVersion":"stable.example.com/v1","kind":"CronTab","spec":`+strings.Repeat(`{"a":`, 10001)+"1"+strings.Repeat("}", 10002)+"\n"), "--crds", cronTabCRD},
		stdout: "@/deep.json:1:50058: error: invalid JSON: nested more than 10000 levels deep (kubectl and the API server refuse it)\n0 valid, 0 invalid, 0 skipped, 1 error\n",
		code:   2,
	}, {
		name:   "binary data",
		args:   []string{"validate", "-f", write("noise.yaml", string(noise)), "--crds", cronTabCRD},
		stdout: "@/noise.yaml: error: invalid YAML: invalid trailing UTF-8 octet\n0 valid, 0 invalid, 0 skipped, 1 error\n",
		code:   2,
	}, {
		name:   "binary data as CRDs",
		args:   []string{"get", "crontabs", "--crds", filepath.Join(dir, "noise.yaml")},
		stderr: "error: @/noise.yaml: invalid YAML: invalid trailing UTF-8 octet\n",
		code:   2,
	}, {
		name:   "an empty file",
		args:   []string{"validate", "-f", write("empty.yaml", ""), "--crds", cronTabCRD},
		stderr: "error: no objects passed to validate\n",
		code:   2,
	}, {
		name:   "a scalar document",
		args:   []string{"validate", "-f", write("scalar.yaml", "---\njust words\n"), "--offline"},
		stdout: "@/scalar.yaml:2:1: error: expected an object (a mapping with apiVersion and kind), found the scalar \"just words\"\n0 valid, 0 invalid, 0 skipped, 1 error\n",
		code:   2,
	}, {
		name:   "a list document",
		args:   []string{"validate", "-f", write("list.yaml", "- a\n- b\n"), "--offline"},
		stdout: "@/list.yaml:1:1: error: expected an object (a mapping with apiVersion and kind), found a list\n0 valid, 0 invalid, 0 skipped, 1 error\n",
		code:   2,
	}, {
		name:   "no apiVersion",
		args:   []string{"validate", "-f", write("noapiversion.yaml", "# an object\nkind: CronTab\nmetadata:\n  name: x\n"), "--crds", cronTabCRD},
		stdout: "@/noapiversion.yaml:2:1: apiVersion: Required value\n0 valid, 0 invalid, 0 skipped, 1 error\n",
		code:   2,
	}, {
		name:   "no kind",
		args:   []string{"validate", "-f", write("nokind.yaml", "apiVersion: stable.example.com/v1\nmetadata:\n  name: x\n"), "--crds", cronTabCRD},
		stdout: "@/nokind.yaml:1:1: kind: Required value\n0 valid, 0 invalid, 0 skipped, 1 error\n",
		code:   2,
	}, {
		name: "a CRD with no versions",
		args: []string{"validate", "-f", filepath.Join(badcrds, "names.yaml"), "--offline"},
		stdout: "$REPO/test/testdata/badcrds/names.yaml:2:1: status.storedVersions: Invalid value: null: must have at least one stored version\n" +
			"$REPO/test/testdata/badcrds/names.yaml:4:12: metadata.name: Invalid value: \"wrong.bad.example.com\": must be spec.names.plural+\".\"+spec.group\n" +
			"$REPO/test/testdata/badcrds/names.yaml:7:3: spec.scope: Unsupported value: \"Galactic\": supported values: \"Cluster\", \"Namespaced\"\n" +
			"$REPO/test/testdata/badcrds/names.yaml:9:3: spec.versions: Invalid value: []: must have exactly one version marked as storage version\n" +
			"0 valid, 1 invalid, 0 skipped, 0 errors\n",
		code: 1,
	}, {
		name:   "a CRD with no versions, as --crds",
		args:   []string{"get", "empties", "--crds", filepath.Join(badcrds, "names.yaml")},
		stderr: "error: $REPO/test/testdata/badcrds/names.yaml:9:3: invalid CustomResourceDefinition \"wrong.bad.example.com\": spec.versions: must have exactly one version marked as storage version (0 of 0 are)\n",
		code:   2,
	}, {
		name: "a CRD with no storage version",
		args: []string{"validate", "-f", write("nostorage.yaml", noStorage), "--offline"},
		stdout: "@/nostorage.yaml:5:1: status.storedVersions: Invalid value: null: must have at least one stored version\n" +
			"@/nostorage.yaml:21:3: spec.versions: Invalid value: [{\"Name\":\"v1\",…: must have exactly one version marked as storage version\n" +
			"0 valid, 1 invalid, 0 skipped, 0 errors\n",
		code: 1,
	}, {
		name: "CEL rules over the cost budget",
		args: []string{"validate", "-f", filepath.Join(badcrds, "cel-cost.yaml"), "--offline"},
		stdout: "$REPO/test/testdata/badcrds/cel-cost.yaml:14:7: spec.validation.openAPIV3Schema: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)\n" +
			"$REPO/test/testdata/badcrds/cel-cost.yaml:27:21: spec.validation.openAPIV3Schema.properties[spec].properties[items].items.x-kubernetes-validations[0].rule: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema\n" +
			"$REPO/test/testdata/badcrds/cel-cost.yaml:27:21: spec.validation.openAPIV3Schema.properties[spec].properties[items].items.x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)\n" +
			"0 valid, 1 invalid, 0 skipped, 0 errors\n",
		code: 1,
	}, {
		name: "a CEL rule that would run for ever",
		args: []string{"validate", "-f", filepath.Join(runaway, "crd.yaml"), "-f", filepath.Join(runaway, "pairings.yaml"), "--offline"},
		stdout: "$REPO/test/testdata/runaway/pairings.yaml:5:1: spec: Invalid value: \"object\": 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: every pair of names is compared\n" +
			"2 valid, 1 invalid, 0 skipped, 0 errors\n",
		code: 1,
	}, {
		name:   "conflicting CRDs for one kind in two --crds files",
		args:   []string{"get", "crontabs", "--crds", cronTabCRD, "--crds", write("crontab-again.yaml", stricter)},
		stderr: "error: CustomResourceDefinition \"crontabs.stable.example.com\" is defined twice: at $REPO/examples/crds/crontab.yaml:5 and at @/crontab-again.yaml:5\n",
		code:   2,
	}, {
		name:   "conflicting CRDs for one kind in the input",
		args:   []string{"validate", "-f", cronTabCRD, "-f", filepath.Join(dir, "crontab-again.yaml"), "--offline"},
		stderr: "error: two different CustomResourceDefinitions for kind CronTab.stable.example.com: \"crontabs.stable.example.com\" at $REPO/examples/crds/crontab.yaml:5 and \"crontabs.stable.example.com\" at @/crontab-again.yaml:5\n",
		code:   2,
	}, {
		name:   "the same CRD in the input and in the cluster: the input's wins",
		online: true,
		args:   []string{"validate", "-f", filepath.Join(dir, "crontab-again.yaml"), "-f", write("five.yaml", fmt.Sprintf(crontab, "five")+"  cronSpec: \"* * * * *\"\n  image: x\n  replicas: 5\n")},
		stdout: "@/five.yaml:8:3: spec.replicas: Invalid value: 5: spec.replicas in body should be less than or equal to 2\n1 valid, 1 invalid, 0 skipped, 0 errors\n",
		code:   1,
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var env []string
			if !c.online {
				env = []string{"KUBECONFIG="}
			}
			r := bin.Run(t, "kubectl-crd", env, c.args...)
			at := func(s string) string {
				s = strings.ReplaceAll(s, dir, "@")
				s = strings.ReplaceAll(s, repoRoot, "$REPO")
				// The server quotes a whole versions list in one message.
				return longValue.ReplaceAllString(s, `[{"Name":"v1",…:`)
			}
			stdout, stderr := at(r.Stdout), at(r.Stderr)
			if strings.Contains(r.Stderr, "panic") || strings.Contains(r.Stderr, "goroutine ") {
				t.Fatalf("crashed:\n%s", r.Stderr)
			}
			if r.Code != c.code || stdout != c.stdout || stderr != c.stderr {
				t.Errorf("exit %d, stdout:\n%s\nstderr:\n%s\nwant exit %d, stdout:\n%s\nstderr:\n%s", r.Code, stdout, stderr, c.code, c.stdout, c.stderr)
			}
			maxTime, maxRSS := cmp(c.maxTime, 20*time.Second), cmp(c.maxRSS, 256<<20)
			if r.Elapsed > maxTime || r.PeakRSS > maxRSS {
				t.Errorf("took %v and %d MiB; the bounds are %v and %d MiB", r.Elapsed, r.PeakRSS>>20, maxTime, maxRSS>>20)
			}
			t.Logf("%v, %d MiB", r.Elapsed.Round(time.Millisecond), r.PeakRSS>>20)
		})
	}
}

var longValue = regexp.MustCompile(`\[\{"Name":"v1",.*\}\]:`)

func cmp[T comparable](v, otherwise T) T {
	var zero T
	if v == zero {
		return otherwise
	}
	return v
}

func readString(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
