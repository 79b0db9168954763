package cmd

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

// profiling is kubectl's --profile and --profile-output: a Go profile of
// this run, written to a file.
type profiling struct {
	name, output string
	cpu          *os.File
}

func (p *profiling) addFlags(flags *pflag.FlagSet) {
	flags.StringVar(&p.name, "profile", "none", "Name of profile to capture. One of (none|cpu|heap|goroutine|threadcreate|block|mutex)")
	flags.StringVar(&p.output, "profile-output", "profile.pprof", "Name of the file to write the profile to")
}

// start begins recording what the profile needs recorded during the run.
func (p *profiling) start() error {
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

// flush writes the profile out.
func (p *profiling) flush() error {
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
