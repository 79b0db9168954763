VERSION ?= dev
DIST ?= dist
LDFLAGS := -X github.com/kubectl-crd/kubectl-crd/pkg/cmd.Version=$(VERSION)

.PHONY: build test fuzz devcluster dist vsix release vscode-e2e

build:
	go build -trimpath -ldflags "$(LDFLAGS)" -o bin/kubectl-crd ./cmd/kubectl-crd

test:
	go test ./...

# Every fuzz target for FUZZTIME each (CI fuzzes pkg/manifest's briefly
# and runs the others' seeds: fuzzing them builds every dependency again).
FUZZTIME ?= 2m
fuzz:
	for t in manifest:FuzzRead manifest:FuzzReadDirect manifest:FuzzYAMLNodeLater manifest:FuzzJSONNodeLater manifest:FuzzMapKeyPositions \
		catalog:FuzzLoadCRDs validate:FuzzValidate schemaproof:FuzzProof schemaproof:FuzzProofOverSchemas printers:FuzzTable builtin:FuzzCheck; do \
		go test -run '^$$' -fuzz "^$${t#*:}$$" -fuzztime $(FUZZTIME) ./pkg/$${t%%:*} || exit 1; \
	done

devcluster:
	go run ./test/devcluster

# make dist VERSION=vX.Y.Z: release archives, checksums.txt and the krew
# manifest (crd.yaml) in $(DIST), and the manifest in a krew index's layout
# in $(DIST)/index (plugins/crd.yaml). PLATFORMS=os/arch,... builds those
# only (the manifest then lists them alone), as the tests do by default.
# VSIX=FILE attaches the extension packaged for this version (see release).
dist:
	go run ./hack/dist -version $(VERSION) -out $(DIST) $(if $(PLATFORMS),-platforms $(PLATFORMS)) $(if $(VSIX),-vsix $(VSIX))

# make vsix: the VS Code extension (editors/vscode) as $(DIST)/kubectl-crd.vsix,
# packaged by @vscode/vsce from the npm registry; the binary is not in it.
# With VERSION=vX.Y.Z the extension is that version (package.json is left
# as it is).
vsix:
	cd editors/vscode && npm ci --no-audit --no-fund && npm run build && npm run package $(if $(VERSION),-- $(VERSION:v%=%) --no-update-package-json --no-git-tag-version)
	mkdir -p $(DIST) && cp editors/vscode/kubectl-crd.vsix $(DIST)/

# make release VERSION=vX.Y.Z: make dist, with the extension of the same
# version attached beside the archives ($(DIST)/kubectl-crd_VERSION.vsix, in
# checksums.txt): everything a GitHub release carries.
release: vsix
	$(MAKE) dist VSIX=$(DIST)/kubectl-crd.vsix

# make vscode-e2e: the extension in a real VS Code (code-server, installed
# by editors/vscode/e2e/setup.sh from the npm registry) driven by headless
# Chromium; screenshots in $(DIST)/vscode-e2e.
vscode-e2e: vsix
	go build -o $(DIST)/kubectl-crd ./cmd/kubectl-crd
	PATH="$$(editors/vscode/e2e/setup.sh | tail -1):$$PATH" node editors/vscode/e2e/run.mjs $(DIST)/kubectl-crd.vsix $(DIST)/kubectl-crd $(DIST)/vscode-e2e
