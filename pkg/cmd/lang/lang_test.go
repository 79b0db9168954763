package lang

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"k8s.io/kubectl/pkg/util/i18n"
)

func TestEnglish(t *testing.T) {
	for _, c := range []struct {
		lcAll, lcMessages, lang string
		english                 bool
	}{
		{"", "", "", true},
		{"", "", "C", true},
		{"", "", "C.UTF-8", true},
		{"", "", "en_US.UTF-8", true},
		{"", "", "en_GB.UTF-8", true}, // no catalogue: kubectl's default
		{"", "", "de_DE.UTF-8", false},
		{"", "", "de_DE", true}, // no encoding: kubectl's default
		{"", "ja_JP.UTF-8", "en_US.UTF-8", false},
		{"en_US.UTF-8", "ja_JP.UTF-8", "de_DE.UTF-8", true},
		{"fr_FR.UTF-8", "", "", false},
		{"", "", "de_DE.UTF-8.x", true},
	} {
		t.Setenv("LC_ALL", c.lcAll)
		t.Setenv("LC_MESSAGES", c.lcMessages)
		t.Setenv("LANG", c.lang)
		if got := English(); got != c.english {
			t.Errorf("LC_ALL=%q LC_MESSAGES=%q LANG=%q: English() = %v, want %v", c.lcAll, c.lcMessages, c.lang, got, c.english)
		}
	}
}

// TestTranslations runs this test binary again under each locale (the
// catalogue is loaded once per process): kubectl's German catalogue still
// translates; English is the message itself.
func TestTranslations(t *testing.T) {
	if os.Getenv("LANG_TEST_CHILD") != "" {
		os.Stdout.WriteString(i18n.T("Display one or many resources"))
		os.Exit(0)
	}
	for lang, want := range map[string]string{
		"de_DE.UTF-8": "Zeige eine oder mehrere Resourcen",
		"en_US.UTF-8": "Display one or many resources",
		"":            "Display one or many resources",
	} {
		cmd := exec.Command(os.Args[0], "-test.run", "^TestTranslations$")
		cmd.Env = append(os.Environ(), "LANG_TEST_CHILD=1", "LC_ALL=", "LC_MESSAGES=", "LANG="+lang)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("LANG=%s: %v", lang, err)
		}
		if got := strings.TrimSpace(string(out)); got != want {
			t.Errorf("LANG=%s: %q, want %q", lang, got, want)
		}
	}
}
