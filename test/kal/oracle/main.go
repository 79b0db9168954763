// Command oracle runs every kube-api-linter analyzer, each with its
// default settings, over Go API packages, and writes each finding with
// the fields of the custom resources it lands on, as JSON on stdout:
//
//	oracle PACKAGE_PATTERN...
//
// A finding on a struct field lands on every path at which the field
// occurs in the objects of a kind (a type shared by two kinds, or by two
// versions through an alias, lands in each); a finding on a type lands on
// every path at which the type occurs. Kinds are the struct types marked
// +kubebuilder:object:root=true, their group the package's +groupName and
// their version the package's name, as controller-gen reads them.
package main

import (
	"encoding/json"
	"fmt"
	"os"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"
	"k8s.io/apimachinery/pkg/util/sets"
	"sigs.k8s.io/kube-api-linter/pkg/analysis/registry"
	"sigs.k8s.io/kube-api-linter/pkg/config"
	_ "sigs.k8s.io/kube-api-linter/pkg/registration" // every linter of kube-api-linter
)

// Output is what the oracle writes.
type Output struct {
	// Linters are the analyzers that ran, Packages the packages they
	// ran on.
	Linters  []string  `json:"linters"`
	Packages []string  `json:"packages"`
	Findings []Finding `json:"findings"`
	// Fields are the fields of every kind, each with the package that
	// declares it.
	Fields []Declared `json:"fields"`
}

// Finding is one diagnostic of one linter.
type Finding struct {
	Linter  string `json:"linter"`
	Message string `json:"message"`
	File    string `json:"file"`
	Line    int    `json:"line"`
	Column  int    `json:"column"`
	// On is what the finding is on: "field", "type", or "" (neither,
	// e.g. a package's comment).
	On     string  `json:"on"`
	Fields []Usage `json:"fields"`
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: oracle PACKAGE_PATTERN...")
		os.Exit(2)
	}
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "oracle:", err)
		os.Exit(1)
	}
}

// linters are every linter of kube-api-linter that runs with its default
// settings: those that need settings of the user's to do anything
// (forbiddenmarkers, namingconventions, ...) refuse to start without
// them, and are left out.
func linters() ([]*analysis.Analyzer, error) {
	reg := registry.DefaultRegistry()
	var out []*analysis.Analyzer
	for _, name := range sets.List(reg.AllLinters()) {
		one, err := reg.InitializeLinters(config.Linters{Enable: []string{name}, Disable: []string{config.Wildcard}}, config.LintersConfig{})
		if err != nil {
			fmt.Fprintf(os.Stderr, "oracle: %s left out: %v\n", name, err)
			continue
		}
		out = append(out, one...)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no linter of kube-api-linter starts")
	}
	return out, nil
}

func run(patterns []string) error {
	analyzers, err := linters()
	if err != nil {
		return err
	}
	pkgs, err := packages.Load(&packages.Config{Mode: packages.LoadAllSyntax}, patterns...)
	if err != nil {
		return err
	}
	if n := packages.PrintErrors(pkgs); n > 0 {
		return fmt.Errorf("%d errors loading %v", n, patterns)
	}
	idx := index(pkgs)
	graph, err := checker.Analyze(analyzers, pkgs, nil)
	if err != nil {
		return err
	}
	out := Output{Findings: []Finding{}, Fields: idx.fields}
	for _, a := range analyzers {
		out.Linters = append(out.Linters, a.Name)
	}
	for _, p := range pkgs {
		out.Packages = append(out.Packages, p.PkgPath)
	}
	for act := range graph.All() {
		if !act.IsRoot {
			continue
		}
		for _, d := range act.Diagnostics {
			out.Findings = append(out.Findings, idx.finding(act.Package.Fset, act.Analyzer.Name, d))
		}
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", " ")
	return enc.Encode(out)
}
