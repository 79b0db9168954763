package lsp

import (
	"sort"
	"strings"
	"testing"
)

// at finds the cursor marked | in text.
func at(t *testing.T, text string) cursor {
	t.Helper()
	lines := strings.Split(text, "\n")
	for r, l := range lines {
		if c := strings.IndexByte(l, '|'); c >= 0 {
			lines[r] = l[:c] + l[c+1:]
			return cursorAt(lines, r, c)
		}
	}
	t.Fatal("no | in the text")
	return cursor{}
}

func keys(m map[string]bool) string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return strings.Join(out, ",")
}

func TestCursorAt(t *testing.T) {
	const deployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 2
  template:
    spec:
      containers:
      - name: a
        image: nginx
        ports:
        - containerPort: 80
      - name: b
        image: busybox
`
	for _, tc := range []struct {
		name, text       string
		path, key, sibls string
	}{
		{"root key", "api|Version: v1\nkind: X\n", "", "apiVersion", "kind"},
		{"value of a root key", "kind: Cron|Tab\n", "", "kind", ""},
		{"blank line under spec", "kind: X\nspec:\n  a: 1\n  |\n  b: 2\nstatus: {}\n", "spec", "", "a,b"},
		{"blank line at the root", "kind: X\nspec:\n  a: 1\n|\n", "", "", "kind,spec"},
		{"a key in an item", strings.Replace(deployment, "image: nginx", "ima|ge: nginx", 1),
			"spec.template.spec.containers.[]", "image", "name,ports"},
		{"the key that starts an item", strings.Replace(deployment, "- name: b", "- na|me: b", 1),
			"spec.template.spec.containers.[]", "name", "image"},
		{"a new key in the first item", strings.Replace(deployment, "        ports:", "        |\n        ports:", 1),
			"spec.template.spec.containers.[]", "", "image,name,ports"},
		{"an item of an item", strings.Replace(deployment, "containerPort", "container|Port", 1),
			"spec.template.spec.containers.[].ports.[]", "containerPort", ""},
		{"a sequence at its key's column", "spec:\n  ports:\n  - port: 1\n    na|me: x\n", "spec.ports.[]", "name", "port"},
		{"after the marker of a new item", "spec:\n  ports:\n  - port: 1\n  - |\n", "spec.ports.[]", "", ""},
		{"the second document", "kind: A\n---\nkind: B\nspec:\n  |\n", "spec", "", ""},
		{"a partial key that does not parse", "kind: X\nspec:\n  schedule: x\n  ima|\n", "spec", "", "schedule"},
		{"a quoted key", "metadata:\n  annotations:\n    \"a/b\": x\n    |\n", "metadata.annotations", "", "a/b"},
	} {
		c := at(t, tc.text)
		if got := strings.Join(c.path(), "."); got != tc.path || c.key != tc.key || keys(c.siblings) != tc.sibls {
			t.Errorf("%s: path %q key %q siblings %q; want %q %q %q", tc.name, got, c.key, keys(c.siblings), tc.path, tc.key, tc.sibls)
		}
	}
}

func TestTokenRange(t *testing.T) {
	for _, tc := range []struct {
		line  string
		col   int
		value bool
		want  string
	}{
		{"  replicas: 11", 2, false, "replicas"},
		{"  replicas: 11", 2, true, "11"},
		{"  cronSpec: \"every night\"  # a comment", 2, true, `"every night"`},
		{"  spec:", 2, true, "spec"},
		{"  script: |", 2, true, "script"},
		{"  \"a/b\": x", 2, false, `"a/b"`},
		{"- name: a", 2, true, "a"},
		{"  just text", 2, true, "just text"},
	} {
		s, e := tokenRange(tc.line, tc.col, tc.value)
		if got := tc.line[s:e]; got != tc.want {
			t.Errorf("%q at %d (value %v): %q, want %q", tc.line, tc.col, tc.value, got, tc.want)
		}
	}
}

func TestColumns(t *testing.T) {
	s := "a: ünïcode 😀 x"
	b := strings.Index(s, "x")
	c := utf16Column(s, b)
	if c != 14 || byteColumn(s, c) != b {
		t.Errorf("byte %d -> UTF-16 %d -> byte %d", b, c, byteColumn(s, c))
	}
	if runeToByte(s, 14) != b {
		t.Errorf("character column 14 is byte %d, not %d", runeToByte(s, 14), b)
	}
}
