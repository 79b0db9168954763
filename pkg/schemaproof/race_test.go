//go:build race

package schemaproof_test

// raceDetector: the tests run with -race, for TestProofConcurrently; the
// soundness test then checks the project's data as read, without the
// corpus and mutations (its one goroutine has nothing for the detector,
// and it is several times slower under it; the test phase runs it whole).
const raceDetector = true
