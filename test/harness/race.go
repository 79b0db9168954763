//go:build race

package harness

// raceDetector: the tests run with -race, and so does the kubectl-crd
// binary they build, so that a data race in the command fails them too.
const raceDetector = true
