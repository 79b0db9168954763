package crdtest

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/kubectl-crd/kubectl-crd/pkg/crdtest"
	yaml "go.yaml.in/yaml/v3"
)

// serverSuite is a suite as the server-side runner reads it: with its own
// reader (YAML documents decoded by the YAML library), not kubectl crd's,
// so that a reading bug there (an expectation dropped) cannot pass on
// both sides. The case types are only containers.
type serverSuite struct {
	File    string
	CRDName string
	Creates []crdtest.CreateCase
	Updates []crdtest.UpdateCase
}

type rawSuite struct {
	CRDName string `yaml:"crdName"`
	Tests   struct {
		OnCreate []struct {
			Name            string `yaml:"name"`
			ResourceName    string `yaml:"resourceName"`
			UseGenerateName bool   `yaml:"useGenerateName"`
			Initial         string `yaml:"initial"`
			ExpectedError   string `yaml:"expectedError"`
			Expected        string `yaml:"expected"`
		} `yaml:"onCreate"`
		OnUpdate []struct {
			Name              string `yaml:"name"`
			ResourceName      string `yaml:"resourceName"`
			UseGenerateName   bool   `yaml:"useGenerateName"`
			InitialCRDPatches []struct {
				Op    string `yaml:"op"`
				Path  string `yaml:"path"`
				From  string `yaml:"from"`
				Value *any   `yaml:"value"`
			} `yaml:"initialCRDPatches"`
			Initial             string `yaml:"initial"`
			Updated             string `yaml:"updated"`
			ExpectedError       string `yaml:"expectedError"`
			ExpectedStatusError string `yaml:"expectedStatusError"`
			Expected            string `yaml:"expected"`
		} `yaml:"onUpdate"`
	} `yaml:"tests"`
}

// readSuites reads every document with tests in the YAML files under dirs.
func readSuites(dirs ...string) ([]serverSuite, error) {
	var out []serverSuite
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".yaml") {
				return err
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			dec := yaml.NewDecoder(bytes.NewReader(data))
			for {
				var doc yaml.Node
				if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
					return nil
				} else if err != nil {
					return err
				}
				var raw rawSuite
				if err := doc.Decode(&raw); err != nil {
					return err
				}
				if len(raw.Tests.OnCreate)+len(raw.Tests.OnUpdate) == 0 {
					continue
				}
				s := serverSuite{File: path, CRDName: raw.CRDName}
				creates, updates := caseLines(&doc, "onCreate"), caseLines(&doc, "onUpdate")
				for i, c := range raw.Tests.OnCreate {
					s.Creates = append(s.Creates, crdtest.CreateCase{Name: c.Name, ResourceName: c.ResourceName, UseGenerateName: c.UseGenerateName,
						Initial: c.Initial, ExpectedError: c.ExpectedError, Expected: c.Expected, Line: creates[i]})
				}
				for i, c := range raw.Tests.OnUpdate {
					u := crdtest.UpdateCase{Name: c.Name, ResourceName: c.ResourceName, UseGenerateName: c.UseGenerateName,
						Initial: c.Initial, Updated: c.Updated, ExpectedError: c.ExpectedError, ExpectedStatusError: c.ExpectedStatusError,
						Expected: c.Expected, Line: updates[i]}
					for _, p := range c.InitialCRDPatches {
						u.InitialCRDPatches = append(u.InitialCRDPatches, crdtest.Patch{Op: p.Op, Path: p.Path, From: p.From, Value: p.Value})
					}
					s.Updates = append(s.Updates, u)
				}
				out = append(out, s)
			}
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// caseLines are the lines of the cases under tests.<key>.
func caseLines(doc *yaml.Node, key string) []int {
	var lines []int
	root := doc
	if root.Kind == yaml.DocumentNode && len(root.Content) > 0 {
		root = root.Content[0]
	}
	tests := child(root, "tests")
	if list := child(tests, key); list != nil {
		for _, item := range list.Content {
			lines = append(lines, item.Line)
		}
	}
	return lines
}

func child(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}
