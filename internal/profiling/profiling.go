// Package profiling is kubectl's --profile and --profile-output: a Go
// profile of one run of a command, written to a file.
package profiling

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"

	"github.com/spf13/pflag"
)

// profileNames are the profiles --profile takes, as kubectl's does.
var profileNames = []string{"none", "cpu", "heap", "goroutine", "threadcreate", "block", "mutex"}

// Profile is a run's profile, as the flags ask for it.
type Profile struct {
	name, output string
	cpu          *os.File
}

// AddFlags adds --profile and --profile-output.
func (p *Profile) AddFlags(flags *pflag.FlagSet) {
	flags.StringVar(&p.name, "profile", "none", "Name of profile to capture. One of (none|cpu|heap|goroutine|threadcreate|block|mutex)")
	flags.StringVar(&p.output, "profile-output", "profile.pprof", "Name of the file to write the profile to")
}

// Start begins recording what the profile needs recorded during the run.
func (p *Profile) Start() error {
	if !slices.Contains(profileNames, p.name) {
		return fmt.Errorf("--profile: unknown profile %q, want one of %v", p.name, profileNames)
	}
	switch p.name {
	case "cpu":
		f, err := os.Create(p.output)
		if err != nil {
			return fmt.Errorf("--profile-output: %w", err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			return fmt.Errorf("--profile=cpu: %w", err)
		}
		p.cpu = f
	case "block":
		runtime.SetBlockProfileRate(1)
	case "mutex":
		runtime.SetMutexProfileFraction(1)
	}
	return nil
}

// Flush writes the profile out.
func (p *Profile) Flush() error {
	switch p.name {
	case "none":
		return nil
	case "cpu":
		if p.cpu == nil {
			return nil
		}
		pprof.StopCPUProfile()
		return p.cpu.Close()
	case "heap":
		runtime.GC()
	}
	profile := pprof.Lookup(p.name)
	f, err := os.Create(p.output)
	if err != nil {
		return fmt.Errorf("--profile-output: %w", err)
	}
	if err := profile.WriteTo(f, 0); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
