# What the benchmark scripts share (sourced, not run): building the tools
# as their releases are built, and measuring one run.
#
# Each tool is built with the flags of its own release, so that what is
# measured is what users install: kubectl crd as hack/dist builds it,
# kubectl-validate and kubeconform as their goreleaser files build them.
# Then each executable is copied: the go command reads the binaries it
# writes, and a file read whole sits in the page cache in large folios,
# which the kernel maps whole at the first touch of any of their pages.
# That adds tens of MiB to the resident set of a large executable (about
# 30 MiB to kubectl crd's) that a copy written by an installer (krew, tar)
# does not have; every tool is copied alike.

[ -x /usr/bin/time ] || { echo "$0 needs GNU time at /usr/bin/time (Debian: apt-get install time)" >&2; exit 2; }

# bench_setup [RUNS]: sets runs (default 5), corpus (KUBECTL_CRD_CORPUS,
# or ../shared/corpus beside the repository) and work, a temporary
# directory removed at exit that also holds kubectl crd's index of CRD
# files; offline (no kubeconfig).
bench_setup() {
	runs=${1:-5}
	corpus=${KUBECTL_CRD_CORPUS:-../shared/corpus}
	[ -d "$corpus" ] || { echo "$(basename "$0"): no corpus at $corpus (set KUBECTL_CRD_CORPUS)" >&2; exit 2; }
	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT
	export KUBECONFIG= KUBECTL_CRD_CACHE_DIR="$work/index"
}

# build_kubectl_crd DIR: DIR/kubectl-crd, built as hack/dist builds the
# release.
build_kubectl_crd() {
	CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$1/build/kubectl-crd" ./cmd/kubectl-crd
	cp "$1/build/kubectl-crd" "$1/kubectl-crd"
}

# install_peers DIR: DIR/kubectl-validate (v0.0.4) and DIR/kubeconform
# (the newest), each built as its release is, from the Go module proxy.
install_peers() {
	CGO_ENABLED=0 GOBIN="$1/build" GOFLAGS= go install -trimpath -ldflags "-s -w" sigs.k8s.io/kubectl-validate@v0.0.4
	CGO_ENABLED=0 GOBIN="$1/build" GOFLAGS= go install -trimpath -tags netgo github.com/yannh/kubeconform/cmd/kubeconform@latest
	cp "$1/build/kubectl-validate" "$1/build/kubeconform" "$1/"
}

# measure CMD...: "SECONDS KIB" of one run: wall time and peak resident
# memory. The exit status is not the point (the peers fail some objects
# they cannot check). Needs $work.
measure() {
	/usr/bin/time -o "$work/time" -f '%e %M' "$@" > /dev/null 2>&1 || true
	tail -1 "$work/time"
}

# median: the median of the numbers on standard input, one per line.
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
