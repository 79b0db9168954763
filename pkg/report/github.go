package report

import (
	"fmt"
	"strings"
)

// Annotation is one GitHub Actions workflow command: ::LEVEL (error,
// warning or notice) with the file, the line, the column when known
// (> 0) and a title, then the message; escaped as the Actions runner
// unescapes them. A line of 0 is written as 1.
func Annotation(level, file string, line, column int, title, message string) string {
	col := ""
	if column > 0 {
		col = fmt.Sprintf(",col=%d", column)
	}
	return fmt.Sprintf("::%s file=%s,line=%d%s,title=%s::%s\n", level, ghProperty(file), max(line, 1), col, ghProperty(title), ghData(message))
}

// RunAnnotation is a workflow command about the whole run, at no file.
func RunAnnotation(level, title, message string) string {
	return fmt.Sprintf("::%s title=%s::%s\n", level, ghProperty(title), ghData(message))
}

func ghData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

func ghProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
