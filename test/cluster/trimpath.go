package cluster

import (
	"fmt"
	"os"
	"os/exec"
	"runtime/debug"
	"strings"
	"sync"
)

// locateTestServer lets kube-apiserver's test server find its own package
// directory when the tests are built with -trimpath (as CI builds them,
// to share one compile with the release build). It finds it from its
// source file's path, which -trimpath makes relative to the module cache
// (k8s.io/kubernetes@VERSION/cmd/kube-apiserver/app/testing), and joins a
// relative one to TEST_SRCDIR and TEST_WORKSPACE, the variables it reads
// under bazel, the one -trimpath build it expects: they are set to the
// module cache and ".". Without -trimpath nothing is set.
var locateTestServer = sync.OnceValue(func() error {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return nil
	}
	trimmed := false
	for _, s := range info.Settings {
		if s.Key == "-trimpath" && s.Value == "true" {
			trimmed = true
		}
	}
	if !trimmed || os.Getenv("TEST_SRCDIR") != "" {
		return nil
	}
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		return fmt.Errorf("finding the module cache for kube-apiserver's test server (the tests are built with -trimpath): go env GOMODCACHE: %w", err)
	}
	if err := os.Setenv("TEST_SRCDIR", strings.TrimSpace(string(out))); err != nil {
		return err
	}
	return os.Setenv("TEST_WORKSPACE", ".")
})
