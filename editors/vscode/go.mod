// The extension is TypeScript. This file makes its directory a module of
// its own, so that the Go files some npm packages ship (in node_modules)
// are not packages of kubectl-crd's module: `go test ./...` and `go vet
// ./...` do not reach them.
module kubectl-crd.invalid/editors/vscode

go 1.26
