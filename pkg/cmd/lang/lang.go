// Package lang loads kubectl's message translations only when the locale
// asks for a language other than English. kubectl's English catalogues map
// every message to itself, and parsing them costs every run about 13 ms of
// start-up; a German or Japanese locale still gets kubectl's translations.
//
// It must be initialised before any package that calls i18n.T while it
// initialises (k8s.io/kubectl/pkg/cmd/explain does), so the command's main
// package imports it first.
package lang

import (
	"os"
	"strings"

	"k8s.io/kubectl/pkg/util/i18n"
)

func init() {
	// The error can only say that translations were loaded already.
	_ = i18n.SetLoadTranslationsFunc(load)
}

func load() error {
	if English() {
		return nil
	}
	return i18n.LoadTranslations("kubectl", nil)
}

// English says whether the locale's language is one whose kubectl
// catalogue is English, chosen as kubectl chooses it: LC_ALL, then
// LC_MESSAGES, then LANG, "language.encoding"; anything else is kubectl's
// default (English) catalogue.
func English() bool {
	l := os.Getenv("LC_ALL")
	if l == "" {
		l = os.Getenv("LC_MESSAGES")
	}
	if l == "" {
		l = os.Getenv("LANG")
	}
	lang, _, ok := strings.Cut(l, ".")
	if !ok || strings.Contains(l[len(lang)+1:], ".") {
		return true
	}
	return lang == "en_US" || !known(lang)
}

// known lists the languages kubectl has catalogues for.
func known(lang string) bool {
	switch lang {
	case "fr_FR", "zh_CN", "ja_JP", "zh_TW", "it_IT", "de_DE", "ko_KR", "pt_BR":
		return true
	}
	return false
}
