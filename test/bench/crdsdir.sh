#!/usr/bin/env bash
# What a large --crds directory costs the commands that need one of its
# CRDs: each command runs with every corpus CRD file in one directory and
# with only the file of the CRD it uses, alternating, and the script prints
# each one's median time and peak memory, and the ratio. The object is the
# first valid example of the corpus (test/bench/corpusinput's one.yaml).
# kubectl crd keeps its index of CRD files in a temporary directory,
# filled by a first run before any is measured.
#
# Usage: test/bench/crdsdir.sh [runs]. Needs GNU time (Debian: apt-get
# install time).
set -euo pipefail
cd "$(dirname "$0")/../.."
. test/bench/lib.sh
bench_setup "${1:-}"

build_kubectl_crd "$work"
go run ./test/bench/corpusinput -corpus "$corpus" -out "$work/real" -kubectl-crd "$work/kubectl-crd" -n 1 -files 1 > /dev/null
dir=$work/real/crds
one=$work/real/one.yaml
apiVersion=$(sed -n 's/^apiVersion: *//p' "$one" | head -1)
kind=$(sed -n 's/^kind: *//p' "$one" | head -1)
group=${apiVersion%/*}
lower=$(tr '[:upper:]' '[:lower:]' <<< "$kind")
# The file of the object's CRD: the one naming its group and kind.
file=$(grep -lE "^ +group: +[\"']?${group//./\\.}[\"']? *$" "$dir"/* | xargs -r grep -lE "^ +kind: +[\"']?$kind[\"']? *$" | head -1 || true)
[ -n "$file" ] || { echo "crdsdir.sh: no CRD file for $kind.$group in $dir" >&2; exit 2; }

sleep 2 # files changed in the last two seconds are not indexed
"$work/kubectl-crd" validate -f "$one" --crds "$dir" > /dev/null 2>&1 || true
"$work/kubectl-crd" validate -f "$one" --crds "$file" > /dev/null 2>&1 || true

# compare NAME ARGS...: kubectl crd ARGS --crds DIR, then --crds FILE.
compare() {
	local name=$1 d=() dm=() f=() fm=() t m
	shift
	for ((r = 0; r < runs; r++)); do
		read -r t m < <(measure "$work/kubectl-crd" "$1" --crds "$dir" "${@:2}")
		d+=("$t") dm+=("$m")
		read -r t m < <(measure "$work/kubectl-crd" "$1" --crds "$file" "${@:2}")
		f+=("$t") fm+=("$m")
	done
	awk -v n="$name" -v dt="$(printf '%s\n' "${d[@]}" | median)" -v dm="$(printf '%s\n' "${dm[@]}" | median)" \
		-v ft="$(printf '%s\n' "${f[@]}" | median)" -v fm="$(printf '%s\n' "${fm[@]}" | median)" 'BEGIN {
		printf "| %s | %.2f s, %d MiB | %.2f s, %d MiB | %.2fx |\n", n, dt, dm / 1024, ft, fm / 1024, dt / ft }'
}

echo "| command ($runs runs each, medians) | --crds: $(ls "$dir" | wc -l) files | --crds: the one file | directory / file |"
echo "| --- | --- | --- | --- |"
compare "validate -f one.yaml" validate -f "$one"
compare "get -f one.yaml" get -f "$one"
compare "explain $lower.spec" explain "$lower.spec"
# The directory's document holds every CRD of the group, the file's one.
groupFiles=$(grep -lE "^ +group: +[\"']?${group//./\\.}[\"']? *$" "$dir"/* | wc -l)
compare "openapi $apiVersion (its group in $groupFiles of the files)" openapi "$apiVersion"
compare "diff -f (its CRD file)" diff -f "$file"
compare "completion of get ${lower:0:3}" __complete get "${lower:0:3}"
