package prefetch

import (
	"strconv"
	"strings"
)

// validateInput reads a command line (without the program's name) as
// kubectl crd validate's flags would: the command name first, then the
// values of -f/--filename in order, and -R/--recursive. ok is false when
// the command is not validate, when it reads a kustomization or stdin, or
// when it names no file. Other flags are passed over; a value of theirs
// taken for one of these flags only makes Read find different paths.
func validateInput(args []string) (paths []string, recursive, ok bool) {
	if len(args) == 0 || args[0] != "validate" {
		return nil, false, false
	}
	for i := 1; i < len(args); i++ {
		arg := args[i]
		name, value, hasValue := strings.Cut(arg, "=")
		switch {
		case arg == "--":
			i = len(args)
		case name == "-f" || name == "--filename":
			if !hasValue {
				if i++; i == len(args) {
					return nil, false, false
				}
				value = args[i]
			}
			paths = append(paths, value)
		case strings.HasPrefix(arg, "-f"):
			paths = append(paths, arg[len("-f"):])
		case name == "-R" || name == "--recursive":
			recursive = true
			if hasValue {
				b, err := strconv.ParseBool(value)
				if err != nil {
					return nil, false, false
				}
				recursive = b
			}
		case name == "-k" || name == "--kustomize" || strings.HasPrefix(arg, "-k"):
			return nil, false, false
		}
	}
	for _, p := range paths {
		if p == "-" || p == "" {
			return nil, false, false
		}
	}
	return paths, recursive, len(paths) > 0
}
