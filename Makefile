VERSION ?= dev
LDFLAGS := -X github.com/kubectl-crd/kubectl-crd/pkg/cmd.Version=$(VERSION)

.PHONY: build test devcluster

build:
	go build -trimpath -ldflags "$(LDFLAGS)" -o bin/kubectl-crd ./cmd/kubectl-crd

test:
	go test ./...

devcluster:
	go run ./test/devcluster
