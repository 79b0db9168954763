//go:build !race

package schemaproof_test

const raceDetector = false
