VERSION ?= dev
DIST ?= dist
LDFLAGS := -X github.com/kubectl-crd/kubectl-crd/pkg/cmd.Version=$(VERSION)

.PHONY: build test devcluster dist

build:
	go build -trimpath -ldflags "$(LDFLAGS)" -o bin/kubectl-crd ./cmd/kubectl-crd

test:
	go test ./...

devcluster:
	go run ./test/devcluster

# make dist VERSION=vX.Y.Z: release archives, checksums.txt and the krew
# manifest (crd.yaml) in $(DIST), and the manifest in a krew index's layout
# in $(DIST)/index (plugins/crd.yaml). PLATFORMS=os/arch,... builds those
# only (the manifest then lists them alone), as the tests do by default.
dist:
	go run ./hack/dist -version $(VERSION) -out $(DIST) $(if $(PLATFORMS),-platforms $(PLATFORMS))
