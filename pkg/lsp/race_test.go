//go:build race

package lsp

// raceDetector: the tests run with -race (several times slower).
const raceDetector = true
