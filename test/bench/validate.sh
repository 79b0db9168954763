#!/usr/bin/env bash
# Validates realistic input offline with kubectl crd validate and with
# kubectl-validate v0.0.4 (installed from the Go module proxy into a
# temporary directory), alternating the two, and prints each one's median
# time and peak memory, and their ratio.
#
# The input is built from the corpus of real-world CRDs and examples
# (KUBECTL_CRD_CORPUS, or ../shared/corpus beside the repository) by
# test/bench/corpusinput: every corpus CRD file in one --crds directory,
# and the projects' example objects that their CRDs accept, as upstream
# wrote them, repeated to 2,000 documents in one stream and as 200 files
# of 10. A second line checks 2,000 CronTabs of the plainest YAML against
# one CRD.
#
# Usage: test/bench/validate.sh [runs]. Needs GNU time (Debian: apt-get
# install time).
set -euo pipefail
[ -x /usr/bin/time ] || { echo "validate.sh needs GNU time at /usr/bin/time" >&2; exit 2; }
cd "$(dirname "$0")/../.."
runs=${1:-5}
corpus=${KUBECTL_CRD_CORPUS:-../shared/corpus}
[ -d "$corpus" ] || { echo "validate.sh: no corpus at $corpus (set KUBECTL_CRD_CORPUS)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

go build -o "$work/kubectl-crd" ./cmd/kubectl-crd
GOBIN="$work" GOFLAGS= go install sigs.k8s.io/kubectl-validate@v0.0.4
go run ./test/bench/corpusinput -corpus "$corpus" -out "$work/real" -kubectl-crd "$work/kubectl-crd" -n 2000 -files 200

mkdir -p "$work/crontab/crds"
cp examples/crds/crontab.yaml "$work/crontab/crds/"
for ((i = 0; i < 2000; i++)); do
	printf -- '---\napiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: ct-%d\nspec:\n  cronSpec: "*/5 * * * *"\n  image: img:%d\n  replicas: %d\n  minReplicas: 1\n  maxReplicas: 10\n' "$i" "$i" $((1 + i % 9))
done > "$work/crontab/stream.yaml"

# measure CMD...: "SECONDS KIB" of one run: wall time and peak resident
# memory. The exit status is not the point (kubectl-validate fails some
# objects it cannot check).
measure() {
	/usr/bin/time -o "$work/time" -f '%e %M' env KUBECONFIG= "$@" > /dev/null 2>&1 || true
	tail -1 "$work/time"
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# compare NAME INPUT CRDS: both tools alternated, runs times each.
compare() {
	local name=$1 input=$2 crds=$3 p=() k=() pm=() km=()
	for ((r = 0; r < runs; r++)); do
		read -r t m < <(measure "$work/kubectl-crd" validate -f "$input" --crds "$crds")
		p+=("$t") pm+=("$m")
		read -r t m < <(measure "$work/kubectl-validate" "$input" --local-crds "$crds" --version 1.30)
		k+=("$t") km+=("$m")
	done
	local pt kt prss krss
	pt=$(printf '%s\n' "${p[@]}" | median)
	kt=$(printf '%s\n' "${k[@]}" | median)
	prss=$(printf '%s\n' "${pm[@]}" | median)
	krss=$(printf '%s\n' "${km[@]}" | median)
	awk -v n="$name" -v pt="$pt" -v kt="$kt" -v pm="$prss" -v km="$krss" 'BEGIN {
		printf "| %s | %.2f s, %d MiB | %.2f s, %d MiB | %.1fx |\n", n, pt, pm / 1024, kt, km / 1024, kt / pt }'
}

echo "| input ($runs runs each, medians) | kubectl crd | kubectl-validate v0.0.4 | ratio |"
echo "| --- | --- | --- | --- |"
compare "corpus: 2,000 documents, one stream, $(ls "$work/real/crds" | wc -l) CRD files" "$work/real/stream.yaml" "$work/real/crds"
compare "corpus: 200 files of 10 documents" "$work/real/files" "$work/real/crds"
compare "2,000 CronTabs, plain YAML, one CRD" "$work/crontab/stream.yaml" "$work/crontab/crds"
