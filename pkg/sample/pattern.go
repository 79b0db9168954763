package sample

import (
	"regexp/syntax"
	"strings"
	"unicode"
)

// fromPattern makes a string that pattern matches, with a length between
// lo and hi where it can: repetitions are taken r times, r growing until
// the string is long enough. n picks among the characters of a class, so
// that several items differ.
func fromPattern(pattern string, lo, hi, n int) (string, bool) {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return "", false
	}
	re = re.Simplify()
	if v, ok := repeating(pattern, re, max(lo, 1), hi, n); ok {
		return v, true // not empty where the pattern allows: "" is rarely meant
	}
	return repeating(pattern, re, lo, hi, n)
}

func repeating(pattern string, re *syntax.Regexp, lo, hi, n int) (string, bool) {
	for r := 0; r <= 64; r++ {
		var b strings.Builder
		g := patternGen{reps: r, n: n}
		if !g.write(&b, re) {
			return "", false
		}
		v := b.String()
		l := len([]rune(v))
		if l > hi {
			return "", false
		}
		if l >= lo && matches(pattern, v) {
			return v, true
		}
	}
	return "", false
}

// patternGen writes a string a parsed regular expression matches.
type patternGen struct {
	reps int // how many times a * or + repeats (at least its minimum)
	n    int // which character of the first class to take
	used bool
}

func (g *patternGen) write(b *strings.Builder, re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpNoMatch:
		return false
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return true
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			if re.Flags&syntax.FoldCase != 0 {
				r = unicode.ToLower(r)
			}
			b.WriteRune(r)
		}
		return true
	case syntax.OpCharClass:
		b.WriteRune(g.pick(re.Rune))
		return true
	case syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		b.WriteRune('a')
		return true
	case syntax.OpCapture:
		return g.write(b, re.Sub[0])
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		least, most := re.Min, re.Max // most < 0: no bound
		switch re.Op {
		case syntax.OpStar:
			least, most = 0, -1
		case syntax.OpPlus:
			least, most = 1, -1
		case syntax.OpQuest:
			least, most = 0, 1
		}
		count := max(least, g.reps)
		if most >= 0 && count > most {
			count = most
		}
		for range count {
			if !g.write(b, re.Sub[0]) {
				return false
			}
		}
		return true
	case syntax.OpConcat:
		for _, s := range re.Sub {
			if !g.write(b, s) {
				return false
			}
		}
		return true
	case syntax.OpAlternate:
		first := 0
		if !g.used {
			first, g.used = g.n, true
		}
		for i := range re.Sub {
			var alt strings.Builder
			if g.write(&alt, re.Sub[(first+i)%len(re.Sub)]) {
				b.WriteString(alt.String())
				return true
			}
		}
		return false
	}
	return false
}

// pick takes a character of a class (pairs of ranges): a lower-case letter
// or a digit where the class has one, as names need; the n-th one for the
// first class met.
func (g *patternGen) pick(ranges []rune) rune {
	var letters, digits, upper []rune
	for i := 0; i+1 < len(ranges); i += 2 {
		for r := max(int(ranges[i]), '0'); r <= int(min(ranges[i+1], 'z')); r++ {
			switch {
			case r >= 'a' && r <= 'z':
				letters = append(letters, rune(r))
			case r >= '0' && r <= '9':
				digits = append(digits, rune(r))
			case r >= 'A' && r <= 'Z':
				upper = append(upper, rune(r))
			}
		}
	}
	preferred := append(append(letters, digits...), upper...)
	for i := 0; len(preferred) == 0 && i+1 < len(ranges); i += 2 {
		if ranges[i] <= ' ' && ' ' <= ranges[i+1] {
			preferred = append(preferred, ' ') // \s: a space, not a tab
		}
	}
	k := 0
	if !g.used {
		k, g.used = g.n, true
	}
	if len(preferred) > 0 {
		return preferred[k%len(preferred)]
	}
	if len(ranges) >= 2 {
		first := ranges[0]
		if first < ' ' && ranges[1] >= 'a' {
			first = 'a'
		}
		return first
	}
	return 'a'
}
