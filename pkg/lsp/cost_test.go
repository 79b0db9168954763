package lsp

import (
	"encoding/json"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
)

// ships is a CRD whose one rule costs 97% of the per-rule limit: it fits,
// and the editor says how close it is.
const ships = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: fleets.cost.example.com
spec:
  group: cost.example.com
  scope: Namespaced
  names: {plural: fleets, singular: fleet, kind: Fleet}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              ships:
                type: array
                maxItems: 24000
                items:
                  type: object
                  properties:
                    name: {type: string, maxLength: 1000}
                    class: {type: string, maxLength: 1000}
                  x-kubernetes-validations:
                  - rule: "self.name.startsWith(self.class)"
`

// TestRuleCostInTheEditor: a rule above half its limit gets an
// information diagnostic on its line (none with costWarning -1), and a
// hover on it gives its cost and shares.
func TestRuleCostInTheEditor(t *testing.T) {
	c := startClient(t, Options{})
	c.initialize(map[string]any{"offline": true})
	uri := "file:///tmp/fleet.yaml"
	c.open(uri, ships)
	var info []protocol.Diagnostic
	for _, d := range c.diagnostics(uri, 1) {
		if d.Code == "CELCost" {
			info = append(info, d)
		}
	}
	if len(info) != 1 || info[0].Range.Start.Line != 28 || !strings.Contains(info[0].Message, "estimated cost 9,696,000: 97.0% of the per-rule limit (10,000,000), runs up to 24,000 times per object") {
		t.Errorf("information diagnostics: %+v", info)
	}
	m := c.call(protocol.MethodTextDocumentHover, map[string]any{"textDocument": map[string]any{"uri": uri}, "position": map[string]any{"line": 28, "character": 22}})
	var h *protocol.Hover
	if m.Error != nil || json.Unmarshal(m.Result, &h) != nil || h == nil || !strings.Contains(h.Contents.Value, "**CEL rule**: estimated cost 9,696,000: 97.0%") {
		t.Errorf("hover on the rule: %+v %s", m.Error, m.Result)
	}
	c.notify(protocol.MethodWorkspaceDidChangeConfiguration, map[string]any{"settings": map[string]any{"costWarning": -1}})
	c.change(uri, 2, ships+"\n")
	for _, d := range c.diagnostics(uri, 2) {
		if d.Code == "CELCost" {
			t.Errorf("costWarning -1: %+v", d)
		}
	}
}

// TestSettingsChangedWhileChecking: settings changed while documents are
// checked (the cost threshold a check reads) are read under the server's
// lock; under -race, a read without it fails this test.
func TestSettingsChangedWhileChecking(t *testing.T) {
	c := startClient(t, Options{})
	c.initialize(map[string]any{"offline": true})
	uri := "file:///tmp/fleet.yaml"
	c.open(uri, ships)
	c.diagnostics(uri, 1)
	for i := range 20 {
		c.notify(protocol.MethodWorkspaceDidChangeConfiguration, map[string]any{"settings": map[string]any{"costWarning": 40 + i}})
		c.change(uri, i+2, ships+strings.Repeat("\n", i+1))
	}
	if got := c.diagnostics(uri, 21); len(got) == 0 {
		t.Errorf("no diagnostics after the changes")
	}
}
