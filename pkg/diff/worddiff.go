package diff

import (
	"strings"
	"unicode"

	"github.com/pmezard/go-difflib/difflib"
)

// wordDiff shows what changed from a to b, a CEL rule, word by word (an
// identifier, a number, a string, an operator): removed words in [-...-],
// added ones in {+...+}, and around each change a few unchanged words,
// the rest elided (...).
func wordDiff(a, b string) string {
	const context = 8
	aw, bw := words(a), words(b)
	m := difflib.NewMatcher(aw, bw)
	var out strings.Builder
	ops := m.GetOpCodes()
	for i, op := range ops {
		switch op.Tag {
		case 'e':
			same := aw[op.I1:op.I2]
			first, last := i == 0, i == len(ops)-1
			switch {
			case len(same) <= 2*context || first && len(same) <= context || last && len(same) <= context:
				out.WriteString(strings.Join(same, ""))
			case first:
				out.WriteString("..." + strings.Join(same[len(same)-context:], ""))
			case last:
				out.WriteString(strings.Join(same[:context], "") + "...")
			default:
				out.WriteString(strings.Join(same[:context], "") + " ... " + strings.Join(same[len(same)-context:], ""))
			}
		default:
			// The spaces before a changed stretch are written before its
			// marks, where both sides have them.
			del, ins := strings.Join(aw[op.I1:op.I2], ""), strings.Join(bw[op.J1:op.J2], "")
			lead := commonSpace(del, ins, op.Tag)
			out.WriteString(lead)
			if del != "" {
				out.WriteString("[-" + strings.TrimPrefix(del, lead) + "-]")
			}
			if ins != "" {
				out.WriteString("{+" + strings.TrimPrefix(ins, lead) + "+}")
			}
		}
	}
	return out.String()
}

// commonSpace is the leading whitespace both changed stretches have (of
// the one there is, for an insertion or a deletion).
func commonSpace(del, ins string, tag byte) string {
	space := func(s string) string { return s[:len(s)-len(strings.TrimLeftFunc(s, unicode.IsSpace))] }
	switch tag {
	case 'd':
		return space(del)
	case 'i':
		return space(ins)
	}
	a, b := space(del), space(ins)
	for !strings.HasPrefix(b, a) {
		a = a[:len(a)-1]
	}
	return a
}

// operators are the characters of CEL's operators, a word together (==,
// !=, <=, &&, ||).
const operators = "=!<>&|+-*/%"

// words splits a rule into its words, each with the spaces before it, so
// that joining them gives the rule back: identifiers and numbers, quoted
// strings, operators, and every other character on its own.
func words(s string) []string {
	var out []string
	runes := []rune(s)
	for i := 0; i < len(runes); {
		start := i
		for i < len(runes) && unicode.IsSpace(runes[i]) {
			i++
		}
		switch {
		case i == len(runes):
		case runes[i] == '\'' || runes[i] == '"':
			q := runes[i]
			i++
			for i < len(runes) && runes[i] != q {
				if runes[i] == '\\' {
					i++
				}
				i++
			}
			i = min(i+1, len(runes))
		case unicode.IsLetter(runes[i]) || unicode.IsDigit(runes[i]) || runes[i] == '_':
			for i < len(runes) && (unicode.IsLetter(runes[i]) || unicode.IsDigit(runes[i]) || runes[i] == '_') {
				i++
			}
		case strings.ContainsRune(operators, runes[i]):
			for i < len(runes) && strings.ContainsRune(operators, runes[i]) {
				i++
			}
		default:
			i++
		}
		out = append(out, string(runes[start:i]))
	}
	return out
}
