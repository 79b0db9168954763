package crdtest

import (
	"fmt"
	"strings"
)

// verdict compares the server's error (nil: none) with the substring a
// case expects ("": none).
func verdict(err error, expected, doing string) Result {
	switch {
	case err == nil && expected != "":
		return failed("expected an error containing %q %s, got none", expected, doing)
	case err != nil && expected == "":
		return failed("%s: %v", doing, err)
	case err != nil && !strings.Contains(err.Error(), expected):
		return failed("%s: the error does not contain the expected text\n%s", doing, errorDiff(expected, err.Error()))
	}
	return Result{Status: Passed}
}

// errorDiff shows an expected part of an error and the error the server
// gave on lines of their own, aligned where they agree longest, the
// first character that differs marked under it; a long error is shown
// around that place.
func errorDiff(expected, got string) string {
	// Where in got the longest beginning of expected is found.
	at, agree := 0, 0
	for i := range len(got) {
		n := 0
		for n < len(expected) && i+n < len(got) && got[i+n] == expected[n] {
			n++
		}
		if n > agree {
			at, agree = i, n
		}
	}
	const context = 60
	from := max(at-context, 0)
	to := min(at+agree+context, len(got))
	shown := got[from:to]
	lead := ""
	if from > 0 {
		shown, lead = "..."+shown, "..."
	}
	if to < len(got) {
		shown += "..."
	}
	pad := strings.Repeat(" ", len(lead)+runeCount(got[from:at]))
	mark := pad + strings.Repeat(" ", runeCount(expected[:agree])) + "^"
	return "expected: " + pad + expected + "\n" +
		"got:      " + shown + "\n" +
		"          " + mark
}

func runeCount(s string) int { return len([]rune(s)) }

func failed(format string, args ...any) Result {
	return Result{Status: Failed, Message: fmt.Sprintf(format, args...)}
}

func errored(err error) Result { return Result{Status: Errored, Message: err.Error()} }
