#!/usr/bin/env bash
# Validates realistic input offline with kubectl crd validate, with
# kubectl-validate v0.0.4 and with kubeconform (both built from the Go
# module proxy into a temporary directory; kubeconform reads the JSON
# Schemas kubectl crd openapi -o jsonschema exports), alternating the
# tools, and prints each one's median time and peak memory, and the
# ratios. Each tool is built as its release is (see lib.sh).
#
# The input is built from the corpus of real-world CRDs and examples
# (KUBECTL_CRD_CORPUS, or ../shared/corpus beside the repository) by
# test/bench/corpusinput: every corpus CRD file in one --crds directory,
# and the projects' example objects that their CRDs accept, as upstream
# wrote them: one object; 2,000 documents in one stream; the same as 200
# files of 10; 20,000 documents in one stream. Two last lines check 2,000
# CronTabs of the plainest YAML against one CRD, and 2,000 Deployments
# (checked as kube-apiserver checks them; by kubectl-validate against the
# schemas it ships for Kubernetes 1.30). kubectl crd also runs with
# KUBECTL_CRD_FAST=0 (without its fast paths) in the same loop. It keeps its
# index of CRD files in a temporary directory, filled by a first run
# before any is measured.
#
# Usage: test/bench/validate.sh [runs]. Needs GNU time (Debian: apt-get
# install time).
set -euo pipefail
cd "$(dirname "$0")/../.."
. test/bench/lib.sh
bench_setup "${1:-}"

build_kubectl_crd "$work"
install_peers "$work"
go run ./test/bench/corpusinput -corpus "$corpus" -out "$work/real" -kubectl-crd "$work/kubectl-crd" -n 2000 -files 200
go run ./test/bench/corpusinput -corpus "$corpus" -out "$work/real20k" -kubectl-crd "$work/kubectl-crd" -n 20000 -files 1
crds=$work/real/crds
"$work/kubectl-crd" openapi -o jsonschema --output-dir "$work/schemas" --crds "$crds"

mkdir -p "$work/crontab/crds"
cp examples/crds/crontab.yaml "$work/crontab/crds/"
for ((i = 0; i < 2000; i++)); do
	printf -- '---\napiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: ct-%d\nspec:\n  cronSpec: "*/5 * * * *"\n  image: img:%d\n  replicas: %d\n  minReplicas: 1\n  maxReplicas: 10\n' "$i" "$i" $((1 + i % 9))
done > "$work/crontab/stream.yaml"
mkdir -p "$work/deploy"
for ((i = 0; i < 2000; i++)); do
	printf -- '---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web-%d\n  labels: {app: web-%d}\nspec:\n  replicas: %d\n  selector:\n    matchLabels: {app: web-%d}\n  template:\n    metadata:\n      labels: {app: web-%d}\n    spec:\n      containers:\n      - name: web\n        image: nginx:1.27\n        ports: [{containerPort: 8080, name: http}]\n        resources: {requests: {cpu: 100m, memory: 64Mi}}\n        readinessProbe: {httpGet: {path: /healthz, port: http}}\n' "$i" "$i" $((1 + i % 5)) "$i" "$i"
done > "$work/deploy/stream.yaml"
# Files changed in the last two seconds are not indexed; then one run
# fills the index.
sleep 2
"$work/kubectl-crd" validate -f "$work/real/one.yaml" --crds "$crds" > /dev/null 2>&1 || true
"$work/kubectl-crd" validate -f "$work/crontab/stream.yaml" --crds "$work/crontab/crds" > /dev/null 2>&1 || true

# compare NAME INPUT CRDS SCHEMAS PEERS: the tools alternated, runs times
# each; PEERS says which peers run (kv: kubectl-validate, kc: kubeconform).
compare() {
	local name=$1 input=$2 crds=$3 schemas=$4 peers=$5
	local p=() pm=() s=() sm=() k=() km=() c=() cm=() t m
	for ((r = 0; r < runs; r++)); do
		read -r t m < <(measure "$work/kubectl-crd" validate -f "$input" --crds "$crds")
		p+=("$t") pm+=("$m")
		read -r t m < <(measure env KUBECTL_CRD_FAST=0 "$work/kubectl-crd" validate -f "$input" --crds "$crds")
		s+=("$t") sm+=("$m")
		if [[ $peers == *kv* ]]; then
			read -r t m < <(measure "$work/kubectl-validate" "$input" --local-crds "$crds" --version 1.30)
			k+=("$t") km+=("$m")
		fi
		if [[ $peers == *kc* ]]; then
			read -r t m < <(measure "$work/kubeconform" -schema-location "$schemas/{{.Group}}/{{.ResourceKind}}_{{.ResourceAPIVersion}}.json" "$input")
			c+=("$t") cm+=("$m")
		fi
	done
	med() { if [ $# -eq 0 ]; then echo 0; else printf '%s\n' "$@" | median; fi; }
	awk -v n="$name" -v pt="$(med "${p[@]}")" -v pm="$(med "${pm[@]}")" \
		-v st="$(med "${s[@]}")" -v sm="$(med "${sm[@]}")" \
		-v kt="$(med "${k[@]+"${k[@]}"}")" -v km="$(med "${km[@]+"${km[@]}"}")" \
		-v ct="$(med "${c[@]+"${c[@]}"}")" -v cm="$(med "${cm[@]+"${cm[@]}"}")" 'BEGIN {
		kv = kt > 0 ? sprintf("%.2f s, %d MiB", kt, km / 1024) : "-"
		kc = ct > 0 ? sprintf("%.2f s, %d MiB", ct, cm / 1024) : "-"
		rk = kt > 0 ? sprintf("%.1fx", kt / pt) : "-"
		rc = ct > 0 ? sprintf("%.2fx", pt / ct) : "-"
		printf "| %s | %.2f s, %d MiB | %.2f s, %d MiB | %s | %s | %s | %s |\n", n, pt, pm / 1024, st, sm / 1024, kv, kc, rk, rc }'
}

echo "| input ($runs runs each, medians) | kubectl crd | KUBECTL_CRD_FAST=0 | kubectl-validate v0.0.4 | kubeconform | kubectl-validate / kubectl crd | kubectl crd / kubeconform |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
n=$(ls "$crds" | wc -l)
compare "one object, $n CRD files" "$work/real/one.yaml" "$crds" "$work/schemas" kv,kc
compare "2,000 documents, one stream" "$work/real/stream.yaml" "$crds" "$work/schemas" kv,kc
compare "200 files of 10 documents" "$work/real/files" "$crds" "$work/schemas" kv,kc
compare "20,000 documents, one stream" "$work/real20k/stream.yaml" "$crds" "$work/schemas" kc
compare "2,000 CronTabs, plain YAML, one CRD" "$work/crontab/stream.yaml" "$work/crontab/crds" "$work/schemas" kv
compare "2,000 Deployments (a built-in kind)" "$work/deploy/stream.yaml" "$work/crontab/crds" "$work/schemas" kv
