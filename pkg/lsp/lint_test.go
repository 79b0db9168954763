package lsp

import (
	"strings"
	"testing"

	"go.lsp.dev/protocol"
)

// TestLintInTheEditor: a CRD's lint findings are diagnostics at their
// fields' keys, coded lint/CHECK, with lint's severities under the
// profile set; lint "off" shows none, and a profile lint does not know is
// a settings error.
func TestLintInTheEditor(t *testing.T) {
	c := startClient(t, Options{})
	c.initialize(map[string]any{"offline": true})
	uri := "file:///tmp/fleet.yaml"
	c.open(uri, ships)
	lintOf := func(diags []protocol.Diagnostic) map[string]protocol.Diagnostic {
		out := map[string]protocol.Diagnostic{}
		for _, d := range diags {
			if code, ok := d.Code.(string); ok && strings.HasPrefix(code, "lint/") {
				out[code+" "+strings.SplitN(d.Message, ":", 2)[0]] = d
			}
		}
		return out
	}
	got := lintOf(c.diagnostics(uri, 1))
	ssa, ok := got["lint/ssatags spec.ships"]
	if !ok || ssa.Severity != protocol.DiagnosticSeverityWarning || ssa.Range.Start.Line != 19 || ssa.Range.Start.Character != 14 || ssa.Range.End.Character != 19 {
		t.Errorf("ssatags on spec.ships (line 20, its key): %+v\nall: %v", ssa, got)
	}
	// No arrayofstruct: no field of the ships is required, but their
	// rule refuses {} (it reads self.name), so an empty ship is invalid.
	if len(got) != 1 {
		t.Errorf("crd profile: want ssatags only, got %v", got)
	}
	c.notify(protocol.MethodWorkspaceDidChangeConfiguration, map[string]any{"settings": map[string]any{"lint": "off"}})
	c.change(uri, 2, ships+"\n")
	if got := lintOf(c.diagnostics(uri, 2)); len(got) != 0 {
		t.Errorf("lint off: %v", got)
	}
}

// TestLintSetting: lint takes crd, kube or off; anything else is an
// error naming the setting, and leaves the settings as they were.
func TestLintSetting(t *testing.T) {
	s := Settings{Lint: "kube"}
	for _, v := range []string{"crd", "off", "kube"} {
		if err := s.merge(map[string]any{"lint": v}); err != nil || s.Lint != v {
			t.Errorf("lint %s: %v, %q", v, err, s.Lint)
		}
	}
	if err := s.merge(map[string]any{"lint": "strict"}); err == nil || !strings.Contains(err.Error(), "lint") || s.Lint != "kube" {
		t.Errorf("lint strict: %v, %q", err, s.Lint)
	}
}
