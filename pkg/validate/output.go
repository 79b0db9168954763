package validate

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"

	"sigs.k8s.io/yaml"
)

// Formats are the report formats of WriteReport.
var Formats = []string{"text", "json", "yaml", "junit", "sarif", "github"}

// WriteReport writes the report in format to w. "yaml" writes the valid
// objects as the server would store them to w and the text report to
// errw. colour colours the text report (for a terminal).
func (r Report) WriteReport(w, errw io.Writer, format, version string, colour bool) error {
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	case "yaml":
		if err := r.WriteObjects(w); err != nil {
			return err
		}
		r.WriteText(errw, colour)
		return nil
	case "junit":
		return r.WriteJUnit(w)
	case "sarif":
		return r.WriteSARIF(w, version)
	case "github":
		r.WriteGitHub(w)
		return nil
	default:
		r.WriteText(w, colour)
		return nil
	}
}

const (
	red, yellow, faint, bold, reset = "\x1b[31m", "\x1b[33m", "\x1b[2m", "\x1b[1m", "\x1b[0m"
)

// WriteText writes each problem as FILE:LINE:COLUMN: FIELD: message (in
// input order, then the order the server lists them), then a summary line.
func (r Report) WriteText(w io.Writer, colour bool) {
	paint := func(c, s string) string {
		if !colour {
			return s
		}
		return c + s + reset
	}
	for _, res := range r.Results {
		name := res.Kind + "/" + res.Name
		switch {
		case res.Status == "skipped":
			fmt.Fprintf(w, "%s %s: %s\n", paint(bold, fmt.Sprintf("%s:%d:", res.File, res.Line)), name, paint(faint, "skipped: "+res.Reason))
		case res.Status == "error" && len(res.Errors) == 0:
			fmt.Fprintf(w, "%s %s: %s\n", paint(bold, fmt.Sprintf("%s:%d:", res.File, res.Line)), name, paint(red, "error: "+res.Reason))
		}
		// Errors and warnings together, in the order of the file.
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
				fmt.Fprintf(w, "%s %s %s: %s\n", where, paint(yellow, "warning:"), p.Field, p.Message)
			case p.Field == "":
				fmt.Fprintf(w, "%s %s\n", where, paint(red, "error: "+p.Message))
			default:
				fmt.Fprintf(w, "%s %s: %s\n", where, paint(red, p.Field), p.Message)
			}
		}
	}
	s := r.Summary
	fmt.Fprintf(w, "%d valid, %d invalid, %d skipped, %d errors\n", s.Valid, s.Invalid, s.Skipped, s.Errors)
}

// WriteObjects writes every valid object, as the server would store it, as
// a stream of YAML documents.
func (r Report) WriteObjects(w io.Writer) error {
	for _, res := range r.Results {
		if res.Object == nil {
			continue
		}
		b, err := yaml.Marshal(res.Object)
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(w, "---\n%s", b); err != nil {
			return err
		}
	}
	return nil
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
