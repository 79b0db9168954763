package diff

import (
	"strings"
	"testing"
)

// TestWordDiff: a changed rule is shown word by word: what was removed
// and added, a few words around it, and nothing else of a long rule.
func TestWordDiff(t *testing.T) {
	long := strings.Repeat("has(self.a) && self.a.size() > 0 && ", 12)
	for _, tc := range []struct{ a, b, want string }{
		{"self.replicas <= 10", "self.replicas <= 20", "self.replicas <= [-10-]{+20+}"},
		{"self.x == 'a b'", "self.x == 'a c'", "self.x == [-'a b'-]{+'a c'+}"},
		{"a && b", "a && b && c", "a && b {+&& c+}"},
		{long + "self.mode == 'x'", long + "self.mode != 'x'", "...() > 0 && self.mode [-==-]{+!=+} 'x'"},
	} {
		got := wordDiff(tc.a, tc.b)
		if got != tc.want {
			t.Errorf("%q to %q:\n got  %q\n want %q", tc.a, tc.b, got, tc.want)
		}
	}
	if d := wordDiff(long+"x", long+"y"); len(d) > 100 {
		t.Errorf("a %d-character rule's one-word change shown in %d characters: %q", len(long), len(d), d)
	}
}
