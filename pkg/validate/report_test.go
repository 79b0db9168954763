package validate

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"regexp"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// cronTabs is a catalog of the example CRD.
func cronTabs(t testing.TB) Kinds {
	t.Helper()
	files, err := catalog.ReadFiles([]string{"../../examples/crds"}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return catalog.New(files, nil)
}

func check(t *testing.T, name, input string, opts Options) Report {
	t.Helper()
	r, err := documents(context.Background(), manifest.InputOf(name, []byte(input)), cronTabs(t), opts)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// where lists each error as "LINE:COLUMN FIELD TYPE".
func where(r Report) []string {
	var out []string
	for _, res := range r.Results {
		for _, p := range res.Errors {
			out = append(out, fmt.Sprintf("%d:%d %s %s", p.Line, p.Column, p.Field, p.Type))
		}
	}
	return out
}

func TestPositions(t *testing.T) {
	tests := []struct {
		name, input string
		want        []string
	}{{
		name: "multi.yaml",
		input: `apiVersion: stable.example.com/v1
kind: CronTab
metadata: {name: a}
spec: {replicas: 2}
---
# the second document
apiVersion: stable.example.com/v1
kind: CronTab
metadata:
  name: b
spec:
  replicas: 20
  cronSpec: nope
`,
		want: []string{"12:3 spec.replicas FieldValueInvalid", "13:3 spec.cronSpec FieldValueInvalid"},
	}, {
		name: "flow.yaml",
		input: `{apiVersion: stable.example.com/v1, kind: CronTab, metadata: {name: f},
 spec: {replicas: 0, image: x, extra: 1}}
`,
		want: []string{"2:9 spec.replicas FieldValueInvalid", "2:32 spec.extra FieldValueUnknown"},
	}, {
		name: "objects.json",
		input: `{
  "apiVersion": "stable.example.com/v1",
  "kind": "CronTab",
  "metadata": {"name": "j", "labels": {"bad label": "x"}},
  "spec": {"replicas": 11}
}
{"apiVersion": "stable.example.com/v1", "kind": "CronTab", "metadata": {"name": "k"}, "spec": {"minReplicas": -1}}
`,
		want: []string{"4:29 metadata.labels FieldValueInvalid", "5:12 spec.replicas FieldValueInvalid", "7:96 spec.minReplicas FieldValueInvalid"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := where(check(t, tt.name, tt.input, Options{}))
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// TestUnreadableDocumentsDoNotHideOthers: a broken document is an error
// of its own; the documents around it are still checked.
func TestUnreadableDocumentsDoNotHideOthers(t *testing.T) {
	input := `apiVersion: stable.example.com/v1
kind: CronTab
metadata: {name: before}
spec: {replicas: 99}
---
apiVersion: stable.example.com/v1
kind: CronTab
metadata: {name: dup}
spec: {replicas: 1, replicas: 2}
---
a: &a [1, *a
---
- a list
---
apiVersion: stable.example.com/v1
kind: CronTab
metadata: {name: after}
spec: {replicas: 0}
`
	r := check(t, "mixed.yaml", input, Options{})
	var got []string
	for _, res := range r.Results {
		got = append(got, fmt.Sprintf("%s %s %v", res.Status, res.Name, where(Report{Results: []ObjectResult{res}})))
	}
	want := []string{
		"invalid before [4:8 spec.replicas FieldValueInvalid]",
		// A key given twice is sent with its last value: a warning.
		"valid dup []",
		"error  [12:0  InputInvalid]",
		"error  [13:1  InputInvalid]",
		"invalid after [18:8 spec.replicas FieldValueInvalid]",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if r.Summary != (Summary{Valid: 1, Invalid: 2, Errors: 2}) {
		t.Errorf("summary %+v", r.Summary)
	}
	if w := r.Results[1].Warnings; len(w) != 1 || w[0].Type != "DuplicateKey" || w[0].Line != 9 || w[0].Column != 21 {
		t.Errorf("the key given twice: %+v", w)
	}
}

func TestKindsAndStoredObjects(t *testing.T) {
	input := `apiVersion: v1
kind: ConfigMap
metadata: {name: c}
---
apiVersion: stable.example.com/v1beta1
kind: CronTab
metadata: {name: old}
spec: {replicas: 3}
---
apiVersion: stable.example.com/v1
kind: CronTab
metadata: {name: defaulted}
spec: {replicas: 3, unknown: x}
status: {lastScheduleTime: "2026-01-01T00:00:00Z"}
`
	r := check(t, "kinds.yaml", input, Options{Unknown: "ignore", Keep: true})
	if r.Results[0].Status != "skipped" || r.Results[1].Status != "valid" || r.Results[2].Status != "valid" {
		t.Fatalf("results %+v", r.Results)
	}
	if w := r.Results[1].Warnings; len(w) != 1 || w[0].Type != "Deprecated" || !strings.Contains(w[0].Message, "use stable.example.com/v1 CronTab") {
		t.Errorf("deprecated version: warnings %+v", w)
	}
	stored := r.Results[2].Object
	spec, _ := stored["spec"].(map[string]any)
	if spec["cronSpec"] != "5 0 * * *" || spec["image"] != "my-awesome-cron-image" || spec["unknown"] != nil || stored["status"] != nil {
		t.Errorf("stored object: defaults, pruning and the status drop missing: %v", stored)
	}
	var out, report bytes.Buffer
	if err := r.WriteReport(&out, &report, "yaml", "", false); err != nil {
		t.Fatal(err)
	}
	docs, err := manifest.Read("out.yaml", out.Bytes())
	if err != nil || len(docs) != 2 {
		t.Fatalf("-o yaml output: %d documents, %v\n%s", len(docs), err, out.String())
	}

	strict := check(t, "kinds.yaml", input, Options{StrictKinds: true})
	if res := strict.Results[0]; res.Status != "invalid" || res.Errors[0].Field != "kind" || res.Errors[0].Line != 2 {
		t.Errorf("--strict-kinds: %+v", res)
	}
}

// TestOldObjects checks updates against given old objects: transition
// rules see oldSelf, and an object with no old one is a create.
func TestOldObjects(t *testing.T) {
	old := map[string]any{"apiVersion": "stable.example.com/v1", "kind": "CronTab",
		"metadata": map[string]any{"name": "a", "namespace": "default", "uid": "u-1", "creationTimestamp": "2026-01-01T00:00:00Z"},
		"spec":     map[string]any{"replicas": int64(2)}}
	input := `apiVersion: stable.example.com/v1
kind: CronTab
metadata: {name: a, uid: other}
spec: {replicas: 3}
---
apiVersion: stable.example.com/v1
kind: CronTab
metadata: {name: b}
spec: {replicas: 3}
`
	opts := Options{Namespace: "default", Old: func(_ context.Context, _ schema.GroupVersionKind, _ schema.GroupVersionResource, ns, name string) (map[string]any, error) {
		if ns == "default" && name == "a" {
			return old, nil
		}
		return nil, nil
	}}
	r := check(t, "update.yaml", input, opts)
	if r.Results[0].Operation != "update" || r.Results[1].Operation != "create" {
		t.Fatalf("operations: %s, %s", r.Results[0].Operation, r.Results[1].Operation)
	}
	// The server's own update checks report the uid change twice.
	if got := where(r); len(got) != 2 || got[0] != "3:21 metadata.uid FieldValueInvalid" || got[1] != got[0] {
		t.Errorf("an update changing the uid: %q", got)
	}
}

func TestFormats(t *testing.T) {
	input := `apiVersion: stable.example.com/v1
kind: CronTab
metadata: {name: one}
spec: {replicas: 20, extra: "a:b"}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: c}
---
apiVersion: stable.example.com/v1
kind: CronTab
metadata: {name: good}
---
[unclosed
`
	r := check(t, "dir/objects.yaml", input, Options{Unknown: "warn"})

	t.Run("junit", func(t *testing.T) {
		var out bytes.Buffer
		if err := r.WriteJUnit(&out); err != nil {
			t.Fatal(err)
		}
		var suites struct {
			Tests    int `xml:"tests,attr"`
			Failures int `xml:"failures,attr"`
			Errors   int `xml:"errors,attr"`
			Skipped  int `xml:"skipped,attr"`
			Suites   []struct {
				Name  string `xml:"name,attr"`
				Cases []struct {
					Name    string `xml:"name,attr"`
					Failure *struct {
						Text string `xml:",chardata"`
					} `xml:"failure"`
					Skipped *struct{} `xml:"skipped"`
					Error   *struct{} `xml:"error"`
				} `xml:"testcase"`
			} `xml:"testsuite"`
		}
		if err := xml.Unmarshal(out.Bytes(), &suites); err != nil {
			t.Fatalf("%v\n%s", err, out.String())
		}
		if suites.Tests != 4 || suites.Failures != 1 || suites.Skipped != 1 || suites.Errors != 1 || len(suites.Suites) != 1 || suites.Suites[0].Name != "dir/objects.yaml" {
			t.Fatalf("counts: %+v", suites)
		}
		c := suites.Suites[0].Cases
		if c[0].Failure == nil || !strings.Contains(c[0].Failure.Text, "dir/objects.yaml:4:8: spec.replicas:") || c[1].Skipped == nil || c[3].Error == nil {
			t.Errorf("test cases: %s", out.String())
		}
	})

	t.Run("sarif", func(t *testing.T) {
		var out bytes.Buffer
		if err := r.WriteSARIF(&out, "v1.0.0"); err != nil {
			t.Fatal(err)
		}
		var log struct {
			Schema  string `json:"$schema"`
			Version string `json:"version"`
			Runs    []struct {
				Tool struct {
					Driver struct {
						Name  string `json:"name"`
						Rules []struct {
							ID string `json:"id"`
						} `json:"rules"`
					} `json:"driver"`
				} `json:"tool"`
				Results []struct {
					RuleID    string `json:"ruleId"`
					RuleIndex int    `json:"ruleIndex"`
					Level     string `json:"level"`
					Message   struct {
						Text string `json:"text"`
					} `json:"message"`
					Locations []struct {
						PhysicalLocation struct {
							ArtifactLocation struct {
								URI string `json:"uri"`
							} `json:"artifactLocation"`
							Region struct {
								StartLine, StartColumn int
							} `json:"region"`
						} `json:"physicalLocation"`
					} `json:"locations"`
				} `json:"results"`
			} `json:"runs"`
		}
		if err := json.Unmarshal(out.Bytes(), &log); err != nil {
			t.Fatal(err)
		}
		if log.Version != "2.1.0" || !strings.Contains(log.Schema, "sarif-2.1.0") || len(log.Runs) != 1 || log.Runs[0].Tool.Driver.Name != "kubectl-crd" {
			t.Fatalf("log: %s", out.String())
		}
		run := log.Runs[0]
		var got []string
		for _, res := range run.Results {
			if res.RuleIndex >= len(run.Tool.Driver.Rules) || run.Tool.Driver.Rules[res.RuleIndex].ID != res.RuleID || len(res.Locations) != 1 {
				t.Errorf("result %+v does not point at its rule", res)
				continue
			}
			loc := res.Locations[0].PhysicalLocation
			got = append(got, fmt.Sprintf("%s %s %s:%d:%d", res.Level, res.RuleID, loc.ArtifactLocation.URI, loc.Region.StartLine, loc.Region.StartColumn))
		}
		want := []string{
			"error FieldValueInvalid dir/objects.yaml:4:8",
			"warning FieldValueUnknown dir/objects.yaml:4:22",
			"error InputInvalid dir/objects.yaml:15:1",
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	})

	t.Run("github", func(t *testing.T) {
		var out bytes.Buffer
		if err := r.WriteReport(&out, nil, "github", "", false); err != nil {
			t.Fatal(err)
		}
		command := regexp.MustCompile(`^::(error|warning) file=([^,]+),line=(\d+)(?:,col=(\d+))?,title=([^:]+)::(.*)$`)
		var got []string
		sc := bufio.NewScanner(&out)
		for sc.Scan() {
			m := command.FindStringSubmatch(sc.Text())
			if m == nil {
				got = append(got, "text: "+sc.Text())
				continue
			}
			got = append(got, strings.Join(m[1:], " "))
		}
		want := []string{
			`error dir/objects.yaml 4 8 FieldValueInvalid spec.replicas: Invalid value: 20: spec.replicas in body should be less than or equal to 10`,
			`warning dir/objects.yaml 4 22 FieldValueUnknown spec.extra: unknown field "spec.extra"`,
			`error dir/objects.yaml 15  InputInvalid invalid YAML: did not find expected ',' or ']'`,
			"text: 1 valid, 1 invalid, 1 skipped, 1 error",
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	})
}

// TestStreamedEqualsBuffered: results passed on as they come (Emit, as
// the command prints them) give, in every format, what the whole report
// written at the end gives: the same results in the same order.
func TestStreamedEqualsBuffered(t *testing.T) {
	var input strings.Builder
	for i := range 300 {
		switch i % 4 {
		case 0:
			fmt.Fprintf(&input, "---\napiVersion: stable.example.com/v1\nkind: CronTab\nmetadata: {name: ok-%d}\nspec: {replicas: 3}\n", i)
		case 1:
			fmt.Fprintf(&input, "---\napiVersion: stable.example.com/v1\nkind: CronTab\nmetadata: {name: bad-%d}\nspec: {replicas: 30, extra: 1}\n", i)
		case 2:
			fmt.Fprintf(&input, "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c-%d}\n", i)
		default:
			fmt.Fprintf(&input, "---\nkind: [broken %d\n", i)
		}
	}
	chunks := func() *manifest.Input { return manifest.InputOf("many.yaml", []byte(input.String())) }
	for _, format := range Formats {
		opts := Options{Keep: format == "yaml"}
		buffered, err := documents(context.Background(), chunks(), cronTabs(t), opts)
		if err != nil {
			t.Fatal(err)
		}
		var wantOut, wantErr bytes.Buffer
		if err := buffered.WriteReport(&wantOut, &wantErr, format, "v0", false); err != nil {
			t.Fatal(err)
		}
		var gotOut, gotErr bytes.Buffer
		p := NewPrinter(&gotOut, &gotErr, format, "v0", nil, false)
		opts.Emit = p.Add
		streamed, err := documents(context.Background(), chunks(), cronTabs(t), opts)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Finish(streamed.Summary); err != nil {
			t.Fatal(err)
		}
		if streamed.Results != nil || streamed.Summary != buffered.Summary || buffered.Summary != (Summary{Valid: 75, Invalid: 75, Skipped: 75, Errors: 75}) {
			t.Errorf("%s: streamed %d results kept, summary %+v; buffered %+v", format, len(streamed.Results), streamed.Summary, buffered.Summary)
		}
		// As on a server, each run gives objects a uid and time of its own.
		serverSet := regexp.MustCompile(`(?m)^  (uid|creationTimestamp): .*$`)
		same := func(a, b string) bool { return serverSet.ReplaceAllString(a, "") == serverSet.ReplaceAllString(b, "") }
		if !same(gotOut.String(), wantOut.String()) || gotErr.String() != wantErr.String() {
			t.Errorf("%s: streamed output differs from the buffered one:\n%.600s\n---- buffered:\n%.600s", format, gotOut.String()+gotErr.String(), wantOut.String()+wantErr.String())
		}
	}
}

// forgetful finds a kind's CRD the first time only, as a CRD deleted
// during the run would be.
type forgetful struct {
	Kinds
	asked atomic.Int32
}

func (f *forgetful) ForKind(ctx context.Context, gk schema.GroupKind) (*catalog.CRD, error) {
	if f.asked.Add(1) > 1 {
		return nil, nil
	}
	return f.Kinds.ForKind(ctx, gk)
}

// TestEachVersionItsSchema checks objects of two versions of one kind,
// each against its own version's schema: the CRD is kept as an outline,
// and found again to build the second version's validator.
func TestEachVersionItsSchema(t *testing.T) {
	input := `apiVersion: stable.example.com/v1
kind: CronTab
metadata: {name: a}
spec: {replicas: 50}
---
apiVersion: stable.example.com/v1beta1
kind: CronTab
metadata: {name: b}
spec: {replicas: 50}
---
apiVersion: stable.example.com/v1beta1
kind: CronTab
metadata: {name: c}
spec: {replicas: "x"}
`
	r := check(t, "versions.yaml", input, Options{})
	got := []string{string(r.Results[0].Status), string(r.Results[1].Status), string(r.Results[2].Status)}
	if strings.Join(got, " ") != "invalid valid invalid" {
		t.Fatalf("statuses %v, want invalid (v1's maximum) valid (v1beta1 has none) invalid (type): %+v", got, r.Results)
	}
	if e := r.Results[0].Errors; len(e) != 1 || e[0].Field != "spec.replicas" || e[0].Type != "FieldValueInvalid" {
		t.Errorf("v1: errors %+v", e)
	}
	if e := r.Results[2].Errors; len(e) != 1 || e[0].Field != "spec.replicas" || e[0].Type != "FieldValueTypeInvalid" {
		t.Errorf("v1beta1: errors %+v", e)
	}

	// The CRD gone when the second version's validator is built: that
	// version's objects are errors that say so, the other version's are
	// checked (which version is met first depends on the workers).
	gone := &forgetful{Kinds: cronTabs(t)}
	r, err := documents(context.Background(), manifest.InputOf("versions.yaml", []byte(input)), gone, Options{})
	if err != nil {
		t.Fatal(err)
	}
	errored := map[string]int{}
	for _, res := range r.Results {
		if res.Status == "error" {
			errored[res.APIVersion]++
			if !strings.Contains(res.Reason, "crontabs.stable.example.com") || !strings.Contains(res.Reason, "no longer there") {
				t.Errorf("%s: reason %q", res.Name, res.Reason)
			}
		}
	}
	v1, v1beta1 := errored["stable.example.com/v1"], errored["stable.example.com/v1beta1"]
	if !(v1 == 1 && v1beta1 == 0 && r.Results[1].Status == "valid") && !(v1 == 0 && v1beta1 == 2 && r.Results[0].Status == "invalid") {
		t.Errorf("errors by version: v1 %d, v1beta1 %d; want one version's objects all errors, the other's checked: %+v", v1, v1beta1, r.Results)
	}
}

// inputFunc is an Input made of a function.
type inputFunc func(f func(manifest.Chunk) bool) error

func (in inputFunc) Each(f func(manifest.Chunk) bool) error { return in(f) }

// cronTabInput yields n CronTab documents, each made as it is asked for,
// calling before with the number yielded so far; then it returns err.
func cronTabInput(n int, before func(yielded int), err error) Input {
	return inputFunc(func(f func(manifest.Chunk) bool) error {
		for i := range n {
			doc := fmt.Sprintf("apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata: {name: ct-%d}\nspec: {replicas: %d}\n", i, 1+i%5)
			more := true
			manifest.InputOf("many.yaml", []byte(doc)).Each(func(c manifest.Chunk) bool {
				before(i + 1)
				more = f(c)
				return more
			})
			if !more {
				return nil
			}
		}
		return err
	})
}

// documents reads its input as it checks it: however long the input, a
// few chunks are read ahead of the results passed on, not the whole input.
func TestDocumentsReadsAsItChecks(t *testing.T) {
	const n = 5000
	var emitted atomic.Int64
	ahead := 0
	input := cronTabInput(n, func(yielded int) { ahead = max(ahead, yielded-int(emitted.Load())) }, nil)
	r, err := documents(context.Background(), input, cronTabs(t), Options{Emit: func(ObjectResult) { emitted.Add(1) }})
	if err != nil {
		t.Fatal(err)
	}
	if r.Summary.Valid != n || emitted.Load() != n {
		t.Fatalf("%+v, %d results passed on; want %d valid", r.Summary, emitted.Load(), n)
	}
	// The chunks waiting for a worker, those the workers hold or have put
	// off, the one being handed over, and results waiting for an earlier
	// one.
	if bound := (5+maxPutOff)*runtime.GOMAXPROCS(0) + 1 + 256; ahead > bound {
		t.Errorf("%d chunks were read ahead of the results passed on, want at most %d", ahead, bound)
	}
}

// An input that cannot be read to its end (a file gone since the first
// walk) ends the check with its error.
func TestDocumentsReturnsTheInputsError(t *testing.T) {
	gone := errors.New("in.yaml: changed while it was being read")
	_, err := documents(context.Background(), cronTabInput(10, func(int) {}, gone), cronTabs(t), Options{})
	if !errors.Is(err, gone) {
		t.Errorf("got %v, want %v", err, gone)
	}
}

// heldLookups holds up the lookups hold picks (by kind, and by how many
// lookups came before) until release is closed, or a time limit passes.
type heldLookups struct {
	Kinds
	hold    func(gk schema.GroupKind, before int32) bool
	asked   atomic.Int32
	holding chan struct{} // closed when a lookup is held
	release chan struct{}
	timeout atomic.Bool
}

func newHeldLookups(kinds Kinds, hold func(gk schema.GroupKind, before int32) bool) *heldLookups {
	return &heldLookups{Kinds: kinds, hold: hold, holding: make(chan struct{}), release: make(chan struct{})}
}

func (h *heldLookups) ForKind(ctx context.Context, gk schema.GroupKind) (*catalog.CRD, error) {
	if !h.hold(gk, h.asked.Add(1)-1) {
		return h.Kinds.ForKind(ctx, gk)
	}
	close(h.holding)
	select {
	case <-h.release:
	case <-time.After(5 * time.Second):
		h.timeout.Store(true)
	}
	return h.Kinds.ForKind(ctx, gk)
}

// feeder hands documents to documents one at a time, and can wait for
// the results passed on.
type feeder struct {
	f       func(manifest.Chunk) bool
	emitted atomic.Int64
}

func (fd *feeder) feed(doc string) {
	manifest.InputOf("in.yaml", []byte(doc)).Each(fd.f)
}

func (fd *feeder) waitEmitted(n int64) {
	for fd.emitted.Load() < n {
		time.Sleep(time.Millisecond)
	}
}

func cronTabDoc(version string, i int) string {
	return fmt.Sprintf("apiVersion: stable.example.com/%s\nkind: CronTab\nmetadata: {name: ct-%d}\nspec: {replicas: 1}\n", version, i)
}

// A kind found once is not waited for again: while the catalog looks
// one kind up, objects of a kind found before are checked.
func TestDocumentsChecksKnownKindsDuringALookup(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	const n = 100
	kinds := newHeldLookups(cronTabs(t), func(gk schema.GroupKind, _ int32) bool { return gk.Kind == "Widget" })
	fd := &feeder{}
	input := inputFunc(func(f func(manifest.Chunk) bool) error {
		fd.f = f
		fd.feed(cronTabDoc("v1", 0))
		fd.waitEmitted(1) // CronTab found
		fd.feed("apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n")
		<-kinds.holding
		for i := 1; i <= n; i++ {
			fd.feed(cronTabDoc("v1", i))
		}
		// Every chunk handed over: far more than wait for a worker, so
		// the CronTabs were checked while Widget was being looked up.
		close(kinds.release)
		return nil
	})
	r, err := documents(context.Background(), input, kinds, Options{Emit: func(ObjectResult) { fd.emitted.Add(1) }})
	if err != nil {
		t.Fatal(err)
	}
	if kinds.timeout.Load() {
		t.Error("the CronTabs waited for the lookup of Widget")
	}
	if r.Summary.Valid != n+1 || r.Summary.Skipped != 1 {
		t.Errorf("%+v", r.Summary)
	}
}

// A worker does not wait for the validator another worker is building:
// it puts that document off and checks the next ones meanwhile.
func TestDocumentsChecksOthersWhileAValidatorIsBuilt(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	const n = 100
	// The first lookup finds the CRD, and v1's validator is built from
	// it; v1beta1's validator looks the CRD up again: held.
	kinds := newHeldLookups(cronTabs(t), func(_ schema.GroupKind, before int32) bool { return before == 1 })
	fd := &feeder{}
	input := inputFunc(func(f func(manifest.Chunk) bool) error {
		fd.f = f
		fd.feed(cronTabDoc("v1", 0))
		fd.waitEmitted(1) // v1's validator built
		fd.feed(cronTabDoc("v1beta1", 1))
		<-kinds.holding // a worker builds v1beta1's validator
		fd.feed(cronTabDoc("v1beta1", 2))
		for i := 3; i < n; i++ {
			fd.feed(cronTabDoc("v1", i))
		}
		close(kinds.release)
		return nil
	})
	var order []string
	r, err := documents(context.Background(), input, kinds, Options{Emit: func(res ObjectResult) {
		fd.emitted.Add(1)
		order = append(order, res.Name)
	}})
	if err != nil {
		t.Fatal(err)
	}
	if kinds.timeout.Load() {
		t.Error("the other worker waited for v1beta1's validator")
	}
	if r.Summary.Valid != n {
		t.Errorf("%+v", r.Summary)
	}
	for i, name := range order {
		if want := fmt.Sprintf("ct-%d", i); name != want {
			t.Fatalf("result %d is %s, want %s: results out of input order", i, name, want)
		}
	}
}

// TestJUnitNamesEachObject: a case is named for its object's kind and
// name, whatever stopped the check (a version the CRD does not serve, a
// misspelt kind).
func TestJUnitNamesEachObject(t *testing.T) {
	input := `apiVersion: stable.example.com/v9
kind: CronTab
metadata: {name: nine}
---
apiVersion: stable.example.com/v1
kind: CronTabb
metadata: {name: typo}
`
	r := check(t, "objects.yaml", input, Options{})
	var out bytes.Buffer
	if err := r.WriteJUnit(&out); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{`name="CronTab/nine (line 1)"`, `name="CronTabb/typo (line 5)"`} {
		if !strings.Contains(out.String(), name) {
			t.Errorf("no case %s in\n%s", name, out.String())
		}
	}
}
