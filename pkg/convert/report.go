package convert

import (
	"fmt"
	"io"
	"strings"

	"github.com/kubectl-crd/kubectl-crd/pkg/kubeversion"
	"k8s.io/apimachinery/pkg/util/version"
)

// ObjectTrips is the report of the round trips of one object of the input.
type ObjectTrips struct {
	File      string `json:"file"`
	Line      int    `json:"line"`
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
	Version   string `json:"version"`
	// Status is "unchanged" (every trip gives the object back as it
	// was), "changed" or "failed" (a conversion failed).
	Status string       `json:"status"`
	Trips  []TripReport `json:"trips"`
}

// TripReport is one round trip in a report.
type TripReport struct {
	Versions []string       `json:"versions"`
	Status   string         `json:"status"`
	Message  string         `json:"message,omitempty"`
	Changes  []PlacedChange `json:"changes,omitempty"`
}

// PlacedChange is a change with the place of its field in the input
// (the nearest field the input has, for an added one).
type PlacedChange struct {
	Change
	Line   int `json:"line"`
	Column int `json:"column"`
}

// Position finds a field of an object in the input.
type Position func(path string) (line, column int)

// NewObjectTrips reports trips of an object read from file:line, whose
// fields pos finds.
func NewObjectTrips(file string, line int, kind, namespace, name, version string, trips []Trip, pos Position) ObjectTrips {
	o := ObjectTrips{File: file, Line: line, Kind: kind, Namespace: namespace, Name: name, Version: version, Status: "unchanged", Trips: []TripReport{}}
	for _, t := range trips {
		tr := TripReport{Versions: t.Versions, Status: "unchanged"}
		switch {
		case t.Err != nil:
			tr.Status, tr.Message, o.Status = "failed", t.Err.Error(), "failed"
		case len(t.Changes) > 0:
			tr.Status = "changed"
			if o.Status != "failed" {
				o.Status = "changed"
			}
			for _, c := range t.Changes {
				l, col := pos(c.Path)
				tr.Changes = append(tr.Changes, PlacedChange{Change: c, Line: l, Column: col})
			}
		}
		o.Trips = append(o.Trips, tr)
	}
	return o
}

// WriteTrips writes round-trip reports as text: a line per object, and
// under it each trip that changed the object or failed, with each field;
// the summary says the Kubernetes version the objects were checked as
// (kube; nil: the newest).
func WriteTrips(w io.Writer, reports []ObjectTrips, kube *version.Version) error {
	var b strings.Builder
	changed := 0
	for _, o := range reports {
		name := o.Name
		if o.Namespace != "" {
			name = o.Namespace + "/" + o.Name
		}
		var others []string
		for _, t := range o.Trips {
			if len(t.Versions) == 3 {
				others = append(others, t.Versions[1])
			}
		}
		if o.Status == "unchanged" {
			through := "no other served version"
			if len(others) > 0 {
				through = strings.Join(others, ", ")
			}
			fmt.Fprintf(&b, "%s:%d: %s %s (%s): unchanged by every round trip (through %s)\n", o.File, o.Line, o.Kind, name, o.Version, through)
			continue
		}
		changed++
		fmt.Fprintf(&b, "%s:%d: %s %s (%s): %s\n", o.File, o.Line, o.Kind, name, o.Version, o.Status)
		for _, t := range o.Trips {
			route := strings.Join(t.Versions, " -> ")
			switch t.Status {
			case "failed":
				fmt.Fprintf(&b, "  %s: %s\n", route, t.Message)
			case "changed":
				fmt.Fprintf(&b, "  %s: %d %s\n", route, len(t.Changes), plural(len(t.Changes), "field", "fields"))
				for _, c := range t.Changes {
					fmt.Fprintf(&b, "    %s:%d:%d: %s\n", o.File, c.Line, c.Column, c.Change)
				}
			}
		}
	}
	if len(reports) > 0 {
		fmt.Fprintf(&b, "%d %s, %d changed or failed by a round trip (checked as Kubernetes %s)\n", len(reports), plural(len(reports), "object", "objects"), changed, kubeversion.OrNewest(kube))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteStored writes what reading stored objects found, as text.
func WriteStored(w io.Writer, results []*Stored) error {
	var b strings.Builder
	for _, r := range results {
		fmt.Fprintf(&b, "%s: %d %s read at %s: %d could not be read\n", r.CRD, r.Objects, plural(r.Objects, "object", "objects"),
			strings.Join(r.Versions, ", "), len(r.Failures))
		for _, f := range r.Failures {
			name := f.Name
			if f.Namespace != "" {
				name = f.Namespace + "/" + f.Name
			}
			fmt.Fprintf(&b, "  %s at %s: %s\n", name, f.Version, f.Message)
		}
		if r.Incomplete != "" {
			fmt.Fprintf(&b, "  incomplete: %s\n", r.Incomplete)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
