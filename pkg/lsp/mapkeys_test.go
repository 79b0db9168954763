package lsp

import (
	"strings"
	"testing"
)

// TestRangesUnderMapKeys: the editor underlines the value a finding under
// a map key with dots, slashes or brackets is about, on the key's line,
// not the map that holds it (the same fixture as validate's test).
func TestRangesUnderMapKeys(t *testing.T) {
	c := startClient(t, Options{})
	c.initialize(map[string]any{"crds": []string{abs(t, "../../test/testdata/mapkeys/crd.yaml")}})
	text := readFile(t, "../../test/testdata/mapkeys/objects.yaml")
	block := text[:strings.Index(text, "\n---\n")+1]
	uri := "file:///tmp/quota.yaml"
	c.open(uri, block)
	lines := strings.Split(block, "\n")
	var got []string
	for _, d := range c.diagnostics(uri, 1) {
		r := d.Range
		if r.Start.Line != r.End.Line {
			t.Errorf("a range over lines: %s", span(d))
			continue
		}
		l := lines[r.Start.Line]
		got = append(got, strings.TrimSpace(l[:strings.Index(l, ":")])+" => "+l[r.Start.Character:r.End.Character])
	}
	want := []string{
		"example.com/gpu => 16",
		`"nvidia.com/mig.1g" => 9`,
		"app.kubernetes.io/name => too-long-a-name",
		"a[0] => also-too-long",
		"size => 7",
		"port => 8080",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("underlined (key => range):\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
