package manifest

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	sigsyaml "sigs.k8s.io/yaml"
)

// TestCollidingKeys: keys that are one key in JSON (true and 'true', yes
// and true, 1 and '1', in block and flow mappings, nested) are sent by
// kubectl's reading with one value or the other from run to run; the
// reading here gives the last one every time, one kubectl also sends,
// and warns at each later key. Keys that are all strings in YAML (a and
// "a") keep their last value, as in kubectl, with the duplicate-key
// warning.
func TestCollidingKeys(t *testing.T) {
	for _, tc := range []struct {
		text, want string
		warnings   []string
	}{
		{"a:\n  true: v1\n  'true': v2\n", `{"a":{"true":"v2"}}`, []string{`f:3:3: key 'true' is "true" in JSON, as is the key true at line 2`}},
		{"a:\n  'true': v1\n  yes: v2\n", `{"a":{"true":"v2"}}`, []string{`f:3:3: key yes is "true" in JSON, as is the key 'true' at line 2`}},
		{"a: {1: b, \"1\": c, 0x1: d}\n", `{"a":{"1":"d"}}`, []string{`f:1:11: key "1" is "1" in JSON, as is the key 1 at line 1`, `f:1:19: key 0x1 is "1" in JSON`}},
		{"l:\n- {on: 1, 'true': 2}\n- k: {false: 3, 'false': 4, no: 5}\n", `{"l":[{"true":2},{"k":{"false":5}}]}`, []string{`f:2:11: key 'true' is "true" in JSON, as is the key on at line 2`, `f:3:17: key 'false'`, `f:3:29: key no`}},
		{"a: 1\n\"a\": 2\n", `{"a":2}`, []string{`f:2:1: duplicate key "a" (first at line 1)`}},
	} {
		var outcomes []string
		for range 40 {
			js, err := sigsyaml.YAMLToJSON([]byte(tc.text))
			if err != nil {
				t.Fatal(err)
			}
			if s := string(js); !strings.Contains(strings.Join(outcomes, "\n"), s) {
				outcomes = append(outcomes, s)
			}
		}
		for run := range 20 {
			d, err := decodeNodeFirst("f", []byte(tc.text), 0)
			if err != nil {
				t.Fatalf("%q: %v", tc.text, err)
			}
			var got bytes.Buffer
			if err := json.Compact(&got, d.JSON); err != nil || got.String() != tc.want {
				t.Fatalf("%q, run %d: %s, want %s (kubectl sends %q)", tc.text, run, d.JSON, tc.want, outcomes)
			}
			if !strings.Contains(strings.Join(outcomes, "\n"), tc.want) && len(outcomes) > 1 {
				t.Errorf("%q: %s is not one of kubectl's %q", tc.text, tc.want, outcomes)
			}
			if run > 0 {
				continue
			}
			var msgs []string
			for _, w := range d.Warnings {
				msgs = append(msgs, w.Error()+w.Sent)
			}
			if len(msgs) != len(tc.warnings) {
				t.Errorf("%q: warnings %q, want %q", tc.text, msgs, tc.warnings)
				continue
			}
			for i, w := range tc.warnings {
				if !strings.HasPrefix(msgs[i], w) {
					t.Errorf("%q: warning %q, want one with %q", tc.text, msgs[i], w)
				}
			}
		}
	}
}
