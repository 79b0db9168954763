package validate

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/kubectl-crd/kubectl-crd/pkg/kubeversion"
	"github.com/kubectl-crd/kubectl-crd/pkg/report"
	k8sversion "k8s.io/apimachinery/pkg/util/version"
	"sigs.k8s.io/yaml"
)

// Formats are the report formats of WriteReport.
var Formats = []string{"text", "json", "yaml", "junit", "sarif", "github"}

// Printer writes a report in one of Formats as its results come, in
// input order: text, github and yaml write each result at once (yaml: the
// stored object to w, its problems to errw); json, junit and sarif need
// the whole report, and keep the results until Finish.
type Printer struct {
	w, errw io.Writer
	format  string
	version string // the tool's, for SARIF
	kube    string // the Kubernetes version answered as
	colour  bool   // colour text (for a terminal)
	kept    []ObjectResult
	// notChecked say what the answers leave out.
	notChecked []string
	err        error
}

// NewPrinter makes a Printer for format; version is the tool's, kube the
// Kubernetes version answered as (nil: the newest).
func NewPrinter(w, errw io.Writer, format, version string, kube *k8sversion.Version, colour bool) *Printer {
	return &Printer{w: w, errw: errw, format: format, version: version, kube: kubeversion.OrNewest(kube).String(), colour: colour}
}

// NotChecked says that the answers leave out what msg says ("": nothing),
// in every format but text and yaml (whose reader sees it on stderr,
// where the command says it): a field of JSON, a notification of SARIF,
// a property of JUnit, a warning annotation of GitHub.
func (p *Printer) NotChecked(msg string) {
	if msg != "" {
		p.notChecked = append(p.notChecked, msg)
	}
}

// Add writes (or keeps) one result.
func (p *Printer) Add(res ObjectResult) {
	if p.err != nil {
		return
	}
	switch p.format {
	case "text":
		p.err = writeTextResult(p.w, res, p.colour)
	case "github":
		p.err = writeGitHubResult(p.w, res)
	case "yaml":
		if p.err = writeObject(p.w, res); p.err == nil {
			p.err = writeTextResult(p.errw, res, p.colour)
		}
	default:
		p.kept = append(p.kept, res)
	}
}

// Finish writes the summary, or the whole report; it returns the first
// error writing met.
func (p *Printer) Finish(s Summary) error {
	if p.err != nil {
		return p.err
	}
	r := Report{Results: p.kept, Summary: s, KubernetesVersion: p.kube, NotChecked: p.notChecked}
	switch p.format {
	case "github":
		for _, msg := range p.notChecked {
			if _, err := io.WriteString(p.w, report.RunAnnotation("warning", "Not checked", msg)); err != nil {
				return err
			}
		}
		return writeSummary(p.w, s, p.kube)
	case "json":
		return report.WriteJSON(p.w, r)
	case "junit":
		return r.WriteJUnit(p.w)
	case "sarif":
		return r.WriteSARIF(p.w, p.version)
	case "yaml":
		return writeSummary(p.errw, s, p.kube)
	default:
		return writeSummary(p.w, s, p.kube)
	}
}

// WriteReport writes a whole report as a Printer would.
func (r Report) WriteReport(w, errw io.Writer, format, version string, colour bool) error {
	p := &Printer{w: w, errw: errw, format: format, version: version, kube: r.KubernetesVersion, colour: colour, notChecked: r.NotChecked}
	if p.kube == "" {
		p.kube = kubeversion.OrNewest(nil).String()
	}
	for _, res := range r.Results {
		p.Add(res)
	}
	return p.Finish(r.Summary)
}

const (
	red, yellow, faint, bold, reset = "\x1b[31m", "\x1b[33m", "\x1b[2m", "\x1b[1m", "\x1b[0m"
)

// writeTextResult writes a result's problems as FILE:LINE:COLUMN: FIELD:
// message, errors and warnings together in the order of the file, or why
// it was skipped or could not be checked.
func writeTextResult(w io.Writer, res ObjectResult, colour bool) error {
	paint := func(c, s string) string {
		if !colour {
			return s
		}
		return c + s + reset
	}
	var b strings.Builder
	name := res.Kind + "/" + res.Name
	switch {
	case res.Status == Skipped:
		fmt.Fprintf(&b, "%s %s: %s\n", paint(bold, fmt.Sprintf("%s:%d:", res.File, res.Line)), name, paint(faint, "skipped: "+res.Reason))
	case res.Status == Errored && len(res.Errors) == 0:
		fmt.Fprintf(&b, "%s %s: %s\n", paint(bold, fmt.Sprintf("%s:%d:", res.File, res.Line)), name, paint(red, "error: "+res.Reason))
	}
	type line struct {
		p       Problem
		warning bool
	}
	var lines []line
	for _, p := range res.Errors {
		lines = append(lines, line{p, false})
	}
	for _, p := range res.Warnings {
		lines = append(lines, line{p, true})
	}
	sort.SliceStable(lines, func(i, j int) bool {
		a, b := lines[i].p, lines[j].p
		return a.Line < b.Line || (a.Line == b.Line && a.Column < b.Column)
	})
	for _, l := range lines {
		p := l.p
		where := paint(bold, place(res.File, p.Line, p.Column))
		switch {
		case l.warning:
			fmt.Fprintf(&b, "%s %s %s\n", where, paint(yellow, "warning:"), fieldMessage(p))
		case p.Field == "":
			fmt.Fprintf(&b, "%s %s\n", where, paint(red, "error: "+p.Message))
		default:
			fmt.Fprintf(&b, "%s %s: %s\n", where, paint(red, p.Field), p.Message)
		}
	}
	if res.Source != "" && b.Len() > 0 && res.Status != Skipped && res.Kind != "" {
		// Where the problems below came from: a file can be rendered by
		// several Kustomizations, each its own way. (What could not be
		// rendered names what failed to render it in its message.)
		head := fmt.Sprintf("%s -> %s %s\n", res.Source, place(res.File, res.Line, 0), name)
		_, err := io.WriteString(w, paint(faint, head)+b.String())
		return err
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeSummary writes the counts, and the Kubernetes version answered as
// where it is not the newest (--kubernetes-version or the cluster's).
func writeSummary(w io.Writer, s Summary, kube string) error {
	as := ""
	if kube != kubeversion.OrNewest(nil).String() {
		as = " (as Kubernetes " + kube + ")"
	}
	_, err := fmt.Fprintf(w, "%d valid, %d invalid, %d skipped, %s%s\n", s.Valid, s.Invalid, s.Skipped, report.Plural(s.Errors, "error", "errors"), as)
	return err
}

// writeObject writes a valid object as the server would store it, as a
// YAML document.
func writeObject(w io.Writer, res ObjectResult) error {
	if res.Object == nil {
		return nil
	}
	b, err := yaml.Marshal(res.Object)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "---\n%s", b)
	return err
}

// place is FILE:LINE:COLUMN:, without the parts that are unknown.
func place(file string, line, column int) string {
	switch {
	case line > 0 && column > 0:
		return fmt.Sprintf("%s:%d:%d:", file, line, column)
	case line > 0:
		return fmt.Sprintf("%s:%d:", file, line)
	}
	return file + ":"
}
