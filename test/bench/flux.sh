#!/usr/bin/env bash
# Renders and checks a fleet repository of 50 Kustomizations and 10
# HelmReleases (test/bench/fluxrepo.sh) with kubectl crd validate --offline
# -f flux:clusters/bench, and prints its median time and peak memory over
# RUNS runs. Beside it, in the same loop: helm's own part (the 10 helm
# template runs alone), and what rendering alone costs with the usual
# tools (kubectl kustomize of the 50 overlays and the 10 helm template
# runs, one process each, as a CI script would call them; no
# substitution, no check). helm is KUBECTL_CRD_HELM, else built from the
# version go.mod names as a tool; kubectl from ./test/kubectl.
#
# Usage: test/bench/flux.sh [runs]. Needs GNU time (Debian: apt-get
# install time).
set -euo pipefail
cd "$(dirname "$0")/../.."
. test/bench/lib.sh
runs=${1:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export KUBECONFIG=

build_kubectl_crd "$work"
helm=${KUBECTL_CRD_HELM:-}
if [ -z "$helm" ]; then
	go build -ldflags "-s -w" -o "$work/helm" helm.sh/helm/v3/cmd/helm
	helm=$work/helm
fi
go build -ldflags "-s -w" -o "$work/kubectl" ./test/kubectl
test/bench/fluxrepo.sh "$work/fleet" 50 10
printf 'replicaCount: 1\n' > "$work/values.yaml"

helm_alone() {
	for ((i = 0; i < 10; i++)); do
		"$helm" template "web$i" charts/web --namespace web --values "$work/values.yaml" --skip-tests --include-crds > /dev/null
	done
}
render_alone() {
	for ((i = 0; i < 50; i++)); do "$work/kubectl" kustomize "apps/app$i/overlay" > /dev/null; done
	helm_alone
}
export -f helm_alone render_alone
export helm work

cd "$work/fleet"
"$work/kubectl-crd" validate --offline --helm "$helm" -f flux:clusters/bench | tail -1
for ((r = 0; r < runs; r++)); do
	measure "$work/kubectl-crd" validate --offline --helm "$helm" -f flux:clusters/bench >> "$work/crd"
	measure bash -c helm_alone >> "$work/helm-alone"
	measure bash -c render_alone >> "$work/render-alone"
done
row() {
	printf '%-58s %6.2f s %5d MiB\n' "$1" "$(cut -d' ' -f1 < "$2" | median)" $(($(cut -d' ' -f2 < "$2" | median) / 1024))
}
echo "$(nproc) cores, median of $runs runs:"
row "kubectl crd validate -f flux:clusters/bench (render+check)" "$work/crd"
row "  of which helm could be: 10 x helm template alone" "$work/helm-alone"
row "kubectl kustomize x 50 + helm template x 10 (render only)" "$work/render-alone"
